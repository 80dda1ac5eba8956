import { describe, expect, it } from 'vitest';
import { ALL_TIME_BOARD } from '../../src/domain/boards.js';
import { pointsMove } from '../../src/domain/ledger.js';
import {
  ledgerEntries,
  placeMoves,
  pointsAndBoards,
  type Placed,
  type PointsMove,
} from '../../src/domain/placement.js';

/** Where points land: the placement rules, without a database. */

const WEEK = 'week:2026-W49';
const MONTH = 'month:2026-12';
const entry = (points: number, seq = '7', teamKey: string | null = 'roma') => ({
  points,
  seq,
  teamKey,
});
const move = (key: string, delta: number, boards: readonly string[]): PointsMove =>
  pointsMove({ key, delta, source: { kind: 'adjustment', by: 'admin', note: key } }, boards);

describe('ledgerEntries', () => {
  it('gives each move its balance after it, in order, and drops the boards', () => {
    const credits = ledgerEntries(10, [move('a', 5, [ALL_TIME_BOARD]), move('b', -3, [])]);
    expect(credits.map((c) => [c.key, c.delta, c.balanceAfter])).toEqual([
      ['a', 5, 15],
      ['b', -3, 12],
    ]);
    expect(credits[0]).not.toHaveProperty('boards');
    expect(credits[0]).toMatchObject({ reason: 'adjustment', source: 'adjustment', questId: null });
  });
});

describe('pointsAndBoards', () => {
  const state: Placed = {
    points: 100,
    entries: new Map([
      [ALL_TIME_BOARD, entry(100)],
      [WEEK, entry(40)],
    ]),
  };
  const none = { teamBoards: [], teamChanged: false };

  it('moves every board a move names by its delta, and the balance', () => {
    const placed = pointsAndBoards(state, [move('a', 5, [ALL_TIME_BOARD, WEEK, MONTH])], none);
    expect(placed.balance).toBe(105);
    expect(placed.boards).toEqual([
      { board: ALL_TIME_BOARD, before: entry(100), points: 105 },
      { board: WEEK, before: entry(40), points: 45 },
      // A season entry the fan does not have yet is created by the move.
      { board: MONTH, before: undefined, points: 5 },
    ]);
  });

  it('merges the moves of one board, and leaves out a board whose moves cancel', () => {
    const placed = pointsAndBoards(
      state,
      [move('a', 5, [ALL_TIME_BOARD, WEEK]), move('b', -5, [WEEK]), move('c', 2, [ALL_TIME_BOARD])],
      none,
    );
    expect(placed.boards).toEqual([{ board: ALL_TIME_BOARD, before: entry(100), points: 107 }]);
    expect(placed.credits.map((c) => c.balanceAfter)).toEqual([105, 100, 102]);
  });

  it('stores nothing without a move, except the all-time entry a fan lacks', () => {
    expect(pointsAndBoards(state, [], none).boards).toEqual([]);
    const fresh: Placed = { points: 0, entries: new Map() };
    expect(pointsAndBoards(fresh, [], none).boards).toEqual([
      { board: ALL_TIME_BOARD, before: undefined, points: 0 },
    ]);
  });

  it('rewrites the existing entries of the team boards when the team changes', () => {
    const placed = pointsAndBoards(state, [], {
      teamBoards: [ALL_TIME_BOARD, WEEK, MONTH],
      teamChanged: true,
    });
    // The month entry does not exist: nothing to retag.
    expect(placed.boards).toEqual([
      { board: ALL_TIME_BOARD, before: entry(100), points: 100 },
      { board: WEEK, before: entry(40), points: 40 },
    ]);
  });

  it('opens the entries a first onboarding creates from the points earned before it', () => {
    const before: Placed = { points: 30, entries: new Map() };
    const placed = pointsAndBoards(before, [move('q', 10, [ALL_TIME_BOARD, WEEK, MONTH])], {
      teamBoards: [ALL_TIME_BOARD, WEEK, MONTH],
      teamChanged: false,
      opening: new Map([
        [ALL_TIME_BOARD, 30],
        [WEEK, 12],
        [MONTH, 0],
      ]),
    });
    expect(placed.balance).toBe(40);
    expect(placed.boards.map((b) => [b.board, b.points])).toEqual([
      [ALL_TIME_BOARD, 40],
      [WEEK, 22],
      [MONTH, 10],
    ]);
  });

  it('opens no entry that exists', () => {
    const placed = pointsAndBoards(state, [], {
      ...none,
      opening: new Map([[WEEK, 99]]),
    });
    expect(placed.boards).toEqual([]);
  });
});

describe('placeMoves', () => {
  it('keeps a fan who is not on the boards in the ledger alone', () => {
    const placed = placeMoves({ points: 8, entries: new Map() }, false, [
      move('a', 2, [ALL_TIME_BOARD]),
    ]);
    expect(placed.boards).toEqual([]);
    expect(placed.credits.map((c) => c.balanceAfter)).toEqual([10]);
  });

  it('places an onboarded fan on the boards, with no team change', () => {
    const state: Placed = { points: 8, entries: new Map([[ALL_TIME_BOARD, entry(8)]]) };
    const placed = placeMoves(state, true, [move('a', 2, [ALL_TIME_BOARD])]);
    expect(placed.boards).toEqual([{ board: ALL_TIME_BOARD, before: entry(8), points: 10 }]);
  });
});
