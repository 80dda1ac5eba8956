/**
 * Where points land (db/schema.ts describes the boards): the ledger entries
 * of a write's moves, each with the balance after it, and the board entries
 * the write stores. Plain computation from the state a write read; the
 * write statement (db/queries/user-write/) stores what this decides.
 */
import type { BoardEntry, BoardWrite, LedgerCredit } from '../../db/queries/user-write/index.js';
import { ALL_TIME_BOARD } from '../../db/schema.js';

/**
 * A change to the user's points, as the service decides it: one ledger
 * entry, and the boards it moves. Every kind of award (or debit) is one of
 * these (src/domain/ledger.ts `pointsMove`): pointsAndBoards turns a list of
 * them into the plan's ledger entries and board entries.
 */
export type PointsMove = Omit<LedgerCredit, 'balanceAfter'> & {
  /** The boards whose entries move by `delta`: the all-time board (the balance) and seasons. */
  boards: readonly string[];
};

/** What placement reads of a fan's state: the balance, and the entries on the boards a move names. */
export interface Placed {
  points: number;
  entries: ReadonlyMap<string, BoardEntry>;
}

/**
 * The ledger entries and board entries of an onboarded user's write: each
 * move's entry with the balance after it, in order; and the board entries
 * to store: every board a move touches, the all-time entry when it is
 * missing (onboarding creates it), and each entry of `teamBoards` that
 * exists when the team changes (an entry's team key follows favoriteTeam, so
 * fan boards never read profiles; past seasons keep theirs). `state` must
 * hold the user's entries on every board a move names: an entry it lacks is
 * taken to be new.
 */
export function pointsAndBoards(
  state: Placed,
  moves: readonly PointsMove[],
  options: {
    teamBoards: readonly string[];
    teamChanged: boolean;
    /**
     * What an entry this write creates starts from, by board: at first
     * onboarding, the balance and the season points earned before it.
     */
    opening?: ReadonlyMap<string, number> | undefined;
  },
): { credits: LedgerCredit[]; boards: BoardWrite[]; balance: number } {
  const credits = ledgerEntries(state.points, moves);
  const balance = credits.at(-1)?.balanceAfter ?? state.points;
  const deltas = new Map<string, number>([[ALL_TIME_BOARD, 0]]);
  for (const board of options.teamBoards) deltas.set(board, 0);
  for (const [board, points] of options.opening ?? []) {
    if (!state.entries.has(board)) deltas.set(board, (deltas.get(board) ?? 0) + points);
  }
  for (const move of moves) {
    for (const board of move.boards) deltas.set(board, (deltas.get(board) ?? 0) + move.delta);
  }
  const boards: BoardWrite[] = [];
  for (const [board, delta] of deltas) {
    const before = state.entries.get(board);
    const retagged =
      before !== undefined && options.teamChanged && options.teamBoards.includes(board);
    if (delta !== 0 || retagged || (board === ALL_TIME_BOARD && !before)) {
      boards.push({ board, before, points: (before?.points ?? 0) + delta });
    }
  }
  return { credits, boards, balance };
}

/**
 * The ledger entries of `moves`, each with the balance after it, in order:
 * for a user who is not on the boards (not onboarded: points are kept, the
 * boards come at onboarding).
 */
export function ledgerEntries(balance: number, moves: readonly PointsMove[]): LedgerCredit[] {
  return moves.map(({ boards: _boards, ...entry }) => {
    balance += entry.delta;
    return { ...entry, balanceAfter: balance };
  });
}

/**
 * A fan's points moves placed: on the boards once onboarded (pointsAndBoards,
 * no team change), in the ledger alone before (the boards come at onboarding).
 */
export function placeMoves(
  state: Placed,
  onBoards: boolean,
  moves: readonly PointsMove[],
): { credits: LedgerCredit[]; boards: BoardWrite[] } {
  return onBoards
    ? pointsAndBoards(state, moves, { teamBoards: [], teamChanged: false })
    : { credits: ledgerEntries(state.points, moves), boards: [] };
}
