import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeLeaderboardCursor,
  decodeLedgerCursor,
  encodeLeaderboardCursor,
  encodeLedgerCursor,
  leaderboardCursorBoard,
} from '../../src/domain/cursor.js';

const position = {
  points: 125,
  seq: '9007199254740993',
  userId: randomUUID(),
};
const board = 'week:2026-W47';
const end = { board, position, rank: 42 };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('page cursors', () => {
  it('round-trip a leaderboard page end exactly, a sequence number past 2^53 included', () => {
    const cursor = encodeLeaderboardCursor(end);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLeaderboardCursor(cursor)).toEqual(end);
    for (const seq of ['0', '9223372036854775807']) {
      const edge = { board, position: { ...position, seq }, rank: 1 };
      expect(decodeLeaderboardCursor(encodeLeaderboardCursor(edge))).toEqual(edge);
    }
  });

  it('round-trip the extremes PostgreSQL holds', () => {
    const extremes = {
      board: leaderboardCursorBoard('month:2026-11', { team: 'x'.repeat(100) }),
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

  it('name each board apart: period, season, team (by its key) and archive', () => {
    const tags = [
      leaderboardCursorBoard('all'),
      leaderboardCursorBoard('week:2026-W47'),
      leaderboardCursorBoard('week:2026-W48'),
      leaderboardCursorBoard('month:2026-11'),
      leaderboardCursorBoard('all', { team: 'Arsenal' }),
      leaderboardCursorBoard('all', { team: 'Ajax' }),
      leaderboardCursorBoard('week:2026-W47', { team: 'Arsenal' }),
      leaderboardCursorBoard('week:2026-W47', { archive: true }),
    ];
    expect(new Set(tags).size).toBe(tags.length);
    // One team board whatever the letter case or width it is asked for with.
    expect(leaderboardCursorBoard('all', { team: 'ＡＲＳＥＮＡＬ' })).toBe(tags[4]);
    for (const tag of tags) {
      const cursor = { board: tag, position, rank: 1 };
      expect(decodeLeaderboardCursor(encodeLeaderboardCursor(cursor))).toEqual(cursor);
    }
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
    ['points not an integer', b64(['lb', board, 1.5, position.seq, position.userId, 1])],
    ['points beyond int4', b64(['lb', board, 2 ** 31, position.seq, position.userId, 1])],
    // The rank key is -points: -(-2³¹) is not an int4.
    ['points -2147483648', b64(['lb', board, -(2 ** 31), position.seq, position.userId, 1])],
    ['seq as a number', b64(['lb', board, 1, 5, position.userId, 1])],
    ['seq beyond bigint', b64(['lb', board, 1, '9223372036854775808', position.userId, 1])],
    ['seq negative', b64(['lb', board, 1, '-1', position.userId, 1])],
    ['seq with a leading zero', b64(['lb', board, 1, '07', position.userId, 1])],
    ['seq not digits', b64(['lb', board, 1, '1e3', position.userId, 1])],
    [
      'a timestamp instead of seq',
      b64(['lb', board, 1, '2026-11-23T15:00:00.123456Z', position.userId, 1]),
    ],
    ['not a uuid', b64(['lb', board, 1, position.seq, 'x', 1])],
    ['rank 0', b64(['lb', board, 1, position.seq, position.userId, 0])],
    ['rank beyond int4', b64(['lb', board, 1, position.seq, position.userId, 2 ** 31])],
    ['without a rank', b64(['lb', board, 1, position.seq, position.userId])],
    ['extra elements', b64(['lb', board, 1, position.seq, position.userId, 1, 1])],
    ['without a board', b64(['lb', 1, position.seq, position.userId, 1])],
    ['an empty board', b64(['lb', '', 1, position.seq, position.userId, 1])],
    ['a board with a space', b64(['lb', 'week 1', 1, position.seq, position.userId, 1])],
    ['a board longer than 80', b64(['lb', 'a'.repeat(81), 1, position.seq, position.userId, 1])],
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
