import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/app-error.js';
import { applyProfilePatch, EMPTY_PROFILE, filledFieldCount } from '../../src/domain/profile.js';

const profile = (fields: Partial<typeof EMPTY_PROFILE>) => ({ ...EMPTY_PROFILE, ...fields });

function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).issues;
  }
  throw new Error('expected a validation error');
}

describe('applyProfilePatch', () => {
  it('keeps omitted fields and reports only real changes', () => {
    const current = profile({ name: 'Ann', location: 'Rome' });
    const { next, changed } = applyProfilePatch(current, { location: null, favoriteTeam: 'Roma' });
    expect(next).toEqual(profile({ name: 'Ann', favoriteTeam: 'Roma' }));
    expect(changed.sort()).toEqual(['favoriteTeam', 'location']);
  });

  it('reports no change when the values are the same', () => {
    const current = profile({ name: 'Ann' });
    expect(applyProfilePatch(current, { name: 'Ann' }).changed).toEqual([]);
  });

  it('refuses clearing a set handle', () => {
    expect(issuesOf(() => applyProfilePatch(profile({ handle: 'ann' }), { handle: null }))).toEqual(
      [{ path: 'handle', message: expect.stringMatching(/not be cleared|not cleared/) }],
    );
  });

  it('refuses rival = favorite in any case, blaming the field being set', () => {
    expect(
      issuesOf(() => applyProfilePatch(profile({ favoriteTeam: 'Lazio' }), { rivalTeam: 'LAZIO' })),
    ).toEqual([expect.objectContaining({ path: 'rivalTeam' })]);
    expect(
      issuesOf(() => applyProfilePatch(profile({ rivalTeam: 'Lazio' }), { favoriteTeam: 'lazio' })),
    ).toEqual([expect.objectContaining({ path: 'favoriteTeam' })]);
  });

  it.each([
    ['a zero-width space', 'Arsenal\u200B', 'Arsenal'],
    ['fullwidth letters', 'Arsenal', 'Ａｒｓｅｎａｌ'],
    ['a soft hyphen', 'Arse\u00ADnal', 'arsenal'],
    ['ß against SS', 'Straße FC', 'STRASSE FC'],
  ])('refuses rival = favorite written with %s', (_, favoriteTeam, rivalTeam) => {
    expect(issuesOf(() => applyProfilePatch(profile({ favoriteTeam }), { rivalTeam }))).toEqual([
      { path: 'rivalTeam', message: 'rivalTeam may not be the same team as favoriteTeam' },
    ]);
  });

  it('counts filled fields', () => {
    expect(filledFieldCount(profile({ name: 'a', handle: 'abc' }))).toBe(2);
  });
});
