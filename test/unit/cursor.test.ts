import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeLeaderboardCursor,
  decodeLedgerCursor,
  encodeLeaderboardCursor,
  encodeLedgerCursor,
} from '../../src/domain/cursor.js';

const position = {
  points: 125,
  seq: '9007199254740993',
  userId: randomUUID(),
};
const end = { position, rank: 42 };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('page cursors', () => {
  it('round-trip a leaderboard page end exactly, a sequence number past 2^53 included', () => {
    const cursor = encodeLeaderboardCursor(end);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLeaderboardCursor(cursor)).toEqual(end);
    for (const seq of ['0', '9223372036854775807']) {
      const edge = { position: { ...position, seq }, rank: 1 };
      expect(decodeLeaderboardCursor(encodeLeaderboardCursor(edge))).toEqual(edge);
    }
  });

  it('round-trip the extremes PostgreSQL holds', () => {
    const extremes = {
      position: {
        points: -2147483647,
        seq: '0',
        userId: position.userId,
      },
      rank: 2147483647,
    };
    expect(decodeLeaderboardCursor(encodeLeaderboardCursor(extremes))).toEqual(extremes);
    const top = {
      ...extremes,
      position: {
        ...extremes.position,
        points: 2147483647,
        seq: '9223372036854775807',
      },
    };
    expect(decodeLeaderboardCursor(encodeLeaderboardCursor(top))).toEqual(top);
  });

  it('round-trip a ledger entry id, up to the largest bigint', () => {
    for (const id of ['1', '9223372036854775807']) {
      expect(decodeLedgerCursor(encodeLedgerCursor(id))).toBe(id);
    }
  });

  it.each([
    ['empty', ''],
    ['padding', `${encodeLedgerCursor('1')}=`],
    ['standard base64 characters', `${encodeLedgerCursor('1')}+/`],
    ['trailing bits that do not round-trip', `${encodeLedgerCursor('12')}x`],
    ['not JSON', Buffer.from('{').toString('base64url')],
    ['the other list', encodeLedgerCursor('7')],
    ['points not an integer', b64(['lb', 1.5, position.seq, position.userId, 1])],
    ['points beyond int4', b64(['lb', 2 ** 31, position.seq, position.userId, 1])],
    // The rank key is -points: -(-2³¹) is not an int4.
    ['points -2147483648', b64(['lb', -(2 ** 31), position.seq, position.userId, 1])],
    ['seq as a number', b64(['lb', 1, 5, position.userId, 1])],
    ['seq beyond bigint', b64(['lb', 1, '9223372036854775808', position.userId, 1])],
    ['seq negative', b64(['lb', 1, '-1', position.userId, 1])],
    ['seq with a leading zero', b64(['lb', 1, '07', position.userId, 1])],
    ['seq not digits', b64(['lb', 1, '1e3', position.userId, 1])],
    [
      'a timestamp instead of seq',
      b64(['lb', 1, '2026-11-23T15:00:00.123456Z', position.userId, 1]),
    ],
    ['not a uuid', b64(['lb', 1, position.seq, 'x', 1])],
    ['rank 0', b64(['lb', 1, position.seq, position.userId, 0])],
    ['rank beyond int4', b64(['lb', 1, position.seq, position.userId, 2 ** 31])],
    ['without a rank', b64(['lb', 1, position.seq, position.userId])],
    ['extra elements', b64(['lb', 1, position.seq, position.userId, 1, 1])],
  ])('refuse a leaderboard cursor that is %s', (_, cursor) => {
    expect(decodeLeaderboardCursor(cursor)).toBeUndefined();
  });

  it.each([
    ['zero', b64(['pts', '0'])],
    ['a leading zero', b64(['pts', '01'])],
    ['beyond bigint', b64(['pts', '9223372036854775808'])],
    ['a number instead of text', b64(['pts', 5])],
    ['the other list', encodeLeaderboardCursor(end)],
    ['too long', 'A'.repeat(513)],
  ])('refuse a ledger cursor that is %s', (_, cursor) => {
    expect(decodeLedgerCursor(cursor)).toBeUndefined();
  });
});
