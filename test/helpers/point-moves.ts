import type { DatabaseHandle } from '../../db/database.js';
import { unchangedPlan } from '../../db/queries/user-write/index.js';
import { ALL_TIME_BOARD } from '../../src/domain/boards.js';
import { pointsAndBoards } from '../../src/domain/placement.js';
import { writeFan } from '../../src/services/fan-writes.js';
import { UserStateCache } from '../../src/services/state-cache.js';

/**
 * Moves a user's points by `delta` (an award, or a debit when negative) on
 * `boards` through the write engine (src/services/fan-writes.ts), as every
 * award does: one ledger entry, the board entries and their rank counts in
 * one statement guarded by the user's version, planned again when another
 * write landed in between. No quest is involved, so a test can put fans on
 * any score the service's writes can reach. Returns the all-time rank the
 * statement computed. `announce`: the write also announces the fan's rank
 * moves (`rank_changed` in the outbox), as an award does.
 */
export async function movePoints(
  handle: Pick<DatabaseHandle, 'db' | 'statements'>,
  userId: string,
  move: { key: string; delta: number; boards?: readonly string[]; announce?: boolean },
): Promise<number> {
  const boards = move.boards ?? [ALL_TIME_BOARD];
  return writeFan<number>(
    { db: handle.db, statements: handle.statements, userStates: new UserStateCache(0) },
    {
      userId,
      scope: { boards, periods: [''] },
      gone: () => {
        throw new Error(`no user ${userId}`);
      },
      plan: (state) => {
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
        return {
          write: {
            ...unchangedPlan(state, new Date()),
            boards: written,
            credits,
            rank: true,
            announceRanks: move.announce === true,
          },
          written: (result) => result.rank!,
        };
      },
    },
    // Storms move the same fans from many writers at once: let them win eventually.
    { writer: 'admin', attempts: 50 },
  );
}
