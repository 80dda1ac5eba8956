import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  classifyHandleChange,
  handleChangeBlockedUntil,
  handleKey,
} from '../../src/domain/handles.js';

describe('handle rules', () => {
  it('compares handles by one case-insensitive key', () => {
    expect(handleKey('Ann_1')).toBe('ann_1');
    expect(handleKey('ANN_1')).toBe(handleKey('ann_1'));
  });

  it('classifies a write: first handle, a change, a change of letter case, none', () => {
    expect(classifyHandleChange(null, 'ann')).toBe('first');
    expect(classifyHandleChange('ann', 'bob')).toBe('change');
    expect(classifyHandleChange('ann', 'Ann')).toBe('recase');
    expect(classifyHandleChange('ann', 'ann')).toBe('none');
    expect(classifyHandleChange(null, null)).toBe('none');
  });

  it('blocks changes for the cooldown after the last change, and not with 0 days', () => {
    const last = new Date('2026-11-01T10:00:00.000Z');
    const until = new Date('2026-12-01T10:00:00.000Z');
    expect(handleChangeBlockedUntil(last, 30, new Date('2026-11-20T00:00:00Z'))).toEqual(until);
    expect(handleChangeBlockedUntil(last, 30, new Date(until.getTime() - 1))).toEqual(until);
    expect(handleChangeBlockedUntil(last, 30, until)).toBeUndefined();
    expect(handleChangeBlockedUntil(last, 0, new Date('2026-11-01T10:00:01Z'))).toBeUndefined();
    expect(handleChangeBlockedUntil(undefined, 30, last)).toBeUndefined();
  });

  it('reads HANDLE_CHANGE_COOLDOWN_DAYS and HANDLE_RESERVE_DAYS with defaults 30 and 14', () => {
    expect(loadConfig({}).handles).toEqual({ cooldownDays: 30, reserveDays: 14 });
    expect(
      loadConfig({ HANDLE_CHANGE_COOLDOWN_DAYS: '0', HANDLE_RESERVE_DAYS: '7' }).handles,
    ).toEqual({ cooldownDays: 0, reserveDays: 7 });
    expect(() => loadConfig({ HANDLE_RESERVE_DAYS: '-1' })).toThrow(/HANDLE_RESERVE_DAYS/);
    expect(() => loadConfig({ HANDLE_CHANGE_COOLDOWN_DAYS: 'soon' })).toThrow(
      /HANDLE_CHANGE_COOLDOWN_DAYS/,
    );
  });
});
