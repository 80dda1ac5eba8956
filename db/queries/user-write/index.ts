/**
 * Every write of one user's state, in at most two round trips and no
 * transaction:
 *
 * 1. state.ts — `readUserState`, one statement: the user row with its
 *    `version`, the profile, the board entries, the quests, the last handle
 *    change. Skipped when this instance's last write of the user left its
 *    state (src/services/state-cache.ts, from `stateAfterWrite`).
 * 2. The service decides what changes with plain functions (src/domain:
 *    placement.ts places points on boards) and describes it as a
 *    `UserWritePlan` (plan.ts).
 * 3. apply.ts — `applyUserWrite` runs the plan's one guarded statement
 *    (statement.ts) and says what happened: written, stale (the version
 *    moved: plan again), gone, or handle_taken.
 */
export { applyUserWrites, stateAfterWrite, type Applied, type UserWriteResult } from './apply.js';
export {
  unchangedPlan,
  type ActivityWrite,
  type BoardWrite,
  type RecordedActivity,
  type HandleMove,
  type LedgerCredit,
  type UserWritePlan,
} from './plan.js';
export {
  readUserState,
  readUserStates,
  type BoardEntry,
  type RecordedEventRow,
  type StateScope,
  type UsageWindow,
  type UserState,
} from './state.js';
