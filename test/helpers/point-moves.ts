import type { DatabaseHandle } from '../../db/database.js';
import {
  ALL_TIME_BOARD,
  applyUserWrite,
  pointsAndBoards,
  readUserState,
  unchangedPlan,
  type UserWritePlan,
} from '../../db/queries/user-write/index.js';

/**
 * Moves a user's points by `delta` (an award, or a debit when negative) on
 * `boards` through the write module (db/queries/user-write/), as every
 * award does: one ledger entry, the board entries and their rank counts in
 * one statement guarded by the user's version, planned again when another
 * write landed in between. No quest is involved, so a test can put fans on
 * any score the service's writes can reach. Returns the all-time rank the
 * statement computed.
 */
export async function movePoints(
  handle: Pick<DatabaseHandle, 'db' | 'statements'>,
  userId: string,
  move: { key: string; delta: number; boards?: readonly string[] },
): Promise<number> {
  const boards = move.boards ?? [ALL_TIME_BOARD];
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const state = await readUserState(handle.db, handle.statements, userId, {
      boards,
      periods: [''],
    });
    if (!state) throw new Error(`no user ${userId}`);
    const { credits, boards: written } = pointsAndBoards(
      state,
      [
        {
          key: move.key,
          delta: move.delta,
          reason: 'adjustment',
          questId: null,
          source: 'adjustment',
          sourceDetail: { by: 'test', note: move.key },
          boards,
        },
      ],
      { teamBoards: [], teamChanged: false },
    );
    const plan: UserWritePlan = {
      ...unchangedPlan(state, new Date()),
      boards: written,
      credits,
      rank: true,
    };
    const result = await applyUserWrite(handle.db, handle.statements, plan);
    if (result.outcome === 'written') return result.rank!;
    if (result.outcome !== 'stale') throw new Error(`point move ${move.key}: ${result.outcome}`);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
  }
  throw new Error(`point move ${move.key}: never got through`);
}
