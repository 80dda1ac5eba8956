/**
 * Runs a plan's statement (statement.ts) and says what happened: written,
 * or not written and why. Autocommit, no transaction: the statement is
 * atomic, and two writes of one user that run at the same time queue on the
 * guard's row lock for the length of one statement.
 *
 * Why this keeps the rules: the plan was computed from the state at
 * `expectedVersion` and is applied only if the state is still at it, so no
 * update is lost and `balanceAfter` (computed from the balance read) is
 * exact. Awards stay exactly-once through the ledger's unique (user_id,
 * idempotency_key). The handle claims' primary key (and the profiles'
 * unique index behind it) judges races between users and reservations: a
 * violation fails the statement (nothing written) and comes back as the
 * outcome `handle_taken`; db/ raises no application errors.
 */
import type { Kysely } from 'kysely';
import {
  ALL_TIME_BOARD,
  questKey,
  type Database,
  type LedgerRow,
  type ProfileRow,
  type StoredQuest,
  type UserRow,
} from '../../schema.js';
import type { CompiledStatements } from '../../statements.js';
import { isDeadlockOrSerialization, isUniqueViolation } from '../errors.js';
import type { UserWritePlan } from './plan.js';
import {
  ledgerFromJson,
  profileFromJson,
  questFromJson,
  stateFromRow,
  type BoardEntry,
  type UserState,
} from './state.js';
import { writeQuery, type WriteRow } from './statement.js';

export type UserWriteResult =
  | {
      outcome: 'written';
      user: UserRow;
      /** The stored profile when the plan wrote one. */
      profile: ProfileRow | undefined;
      /** The statement's clock: every timestamp this write stored. */
      writtenAt: Date;
      /** Newest ledger entries after the write, newest first (`historyLimit` of them). */
      history: LedgerRow[];
      /** The all-time entry's rank after the write, when the plan asked for it. */
      rank: number | undefined;
      /** The entries written, by board. */
      entries: Map<string, BoardEntry>;
      /** The quest states written, as stored. */
      quests: StoredQuest[];
    }
  /**
   * The state moved since it was read: nothing was written. With
   * `returnStateOn`, `current` is the state the statement found
   * (undefined after a deadlock: read again). It can be no newer than the
   * plan's when the write waited for another one that committed after the
   * statement began.
   */
  | { outcome: 'stale'; current: UserState | undefined }
  /** The user no longer exists: nothing was written. */
  | { outcome: 'gone' }
  /**
   * The handle belongs to another user in any letter case, or is reserved
   * for someone else: nothing was written.
   */
  | { outcome: 'handle_taken' }
  /**
   * An event this write records was recorded by another write first (the
   * same client and id, for another user): nothing was written.
   */
  | { outcome: 'event_taken' };

/** Applies `plan` in one statement if the user is still at `plan.expectedVersion`. */
export async function applyUserWrite(
  db: Kysely<Database>,
  statements: CompiledStatements,
  plan: UserWritePlan,
): Promise<UserWriteResult> {
  let row: WriteRow | undefined;
  try {
    ({
      rows: [row],
    } = await db.executeQuery<WriteRow>(writeQuery(statements, plan)));
  } catch (error) {
    if (
      isUniqueViolation(error, 'profiles_handle_lower_key') ||
      isUniqueViolation(error, 'handle_claims_pkey')
    ) {
      return { outcome: 'handle_taken' };
    }
    if (isUniqueViolation(error, 'activity_events_client_event_key')) {
      return { outcome: 'event_taken' };
    }
    // Two writers that lock shared rows in different orders: one is told to retry.
    if (isDeadlockOrSerialization(error)) return { outcome: 'stale', current: undefined };
    throw error;
  }
  if (!row) throw new Error('the write statement returned no row');
  const {
    writtenAt,
    writtenProfile,
    writtenEntries = [],
    writtenQuests = [],
    newLedger = [],
    olderLedger = [],
    rank,
    notified: _notified,
    currentState,
    ...user
  } = row;
  // The guard matched no row: the version moved, or the user is gone.
  if (user.id === null) {
    if (currentState === undefined) return { outcome: 'stale', current: undefined };
    return currentState === null
      ? { outcome: 'gone' }
      : { outcome: 'stale', current: stateFromRow(currentState) };
  }
  return {
    outcome: 'written',
    user,
    profile: writtenProfile ? profileFromJson(writtenProfile) : undefined,
    writtenAt,
    history: [...newLedger, ...olderLedger].slice(0, plan.historyLimit).map(ledgerFromJson),
    rank: rank == null ? undefined : Number(rank),
    entries: new Map(writtenEntries.map(({ board, ...entry }) => [board, entry])),
    quests: writtenQuests.map(questFromJson),
  };
}

/**
 * The state after a write that succeeded, from the state it was planned on
 * and what the statement returned: everything readUserState would now read
 * for the same boards (test/db/write-path/state-cache.test.ts compares the two
 * after every kind of write).
 */
export function stateAfterWrite(
  state: UserState,
  plan: UserWritePlan,
  result: Extract<UserWriteResult, { outcome: 'written' }>,
): UserState {
  const entries = new Map(state.entries);
  for (const [board, entry] of result.entries) entries.set(board, entry);
  const quests = new Map(state.quests);
  for (const quest of result.quests) quests.set(questKey(quest.questId, quest.period), quest);
  const streaks = new Map(state.streaks);
  for (const streak of plan.streaks ?? []) streaks.set(streak.streakId, streak);
  return {
    user: result.user,
    profile: result.profile ?? state.profile,
    entries,
    points:
      entries.get(ALL_TIME_BOARD)?.points ?? plan.credits.at(-1)?.balanceAfter ?? state.points,
    quests,
    streaks,
    // Usage windows and stored events are read for the events a write plans, never reused.
    usage: new Map(),
    recorded: new Map(),
    lastHandleChangeAt:
      plan.handle?.history.kind === 'change' ? result.writtenAt : state.lastHandleChangeAt,
  };
}
