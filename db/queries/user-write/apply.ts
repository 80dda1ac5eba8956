/**
 * Runs the statement of a set of plans (statement.ts) and says what happened
 * to each: written, or not written and why. Autocommit, no transaction: the
 * statement is atomic, and two writes of one user that run at the same time
 * queue on the guard's row lock for the length of one statement.
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
import { isDatabaseUnavailable, isDeadlockOrSerialization, isUniqueViolation } from '../errors.js';
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

/** One plan's outcome, or the error its write ended with (nothing of it written). */
export type Applied = { ok: true; value: UserWriteResult } | { ok: false; error: unknown };

/**
 * Applies `plans` (of distinct fans, at most MAX_FANS_PER_STATEMENT) in one
 * statement: each fan still at its `expectedVersion` is written, the others
 * are not. When the statement fails as a whole (a handle or an event id
 * another fan took meanwhile, a value out of range, a deadlock), nothing of
 * it was written and no error names its fan: each half is applied again
 * on its own, down to the one fan whose write fails, so one fan's error is
 * that fan's answer alone. A deadlock or serialization failure makes every
 * fan of it `stale` (read again); an unreachable database rejects the call.
 */
export async function applyUserWrites(
  db: Kysely<Database>,
  statements: CompiledStatements,
  plans: readonly UserWritePlan[],
): Promise<Applied[]> {
  if (plans.length === 0) return [];
  let rows: WriteRow[];
  try {
    ({ rows } = await db.executeQuery<WriteRow>(writeQuery(statements, plans)));
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    // Two writers that lock shared rows in different orders: each fan is told to retry.
    if (isDeadlockOrSerialization(error)) {
      return plans.map(() => ({ ok: true, value: { outcome: 'stale', current: undefined } }));
    }
    if (plans.length === 1) return [failed(error)];
    const half = Math.ceil(plans.length / 2);
    return [
      ...(await applyUserWrites(db, statements, plans.slice(0, half))),
      ...(await applyUserWrites(db, statements, plans.slice(half))),
    ];
  }
  if (rows.length !== plans.length) throw new Error('the write statement returned a row per fan');
  return rows.map((row, index) => ({ ok: true, value: resultOf(plans[index]!, row) }));
}

/** A single fan's write that failed: what the error says of it. */
function failed(error: unknown): Applied {
  if (
    isUniqueViolation(error, 'profiles_handle_lower_key') ||
    isUniqueViolation(error, 'handle_claims_pkey')
  ) {
    return { ok: true, value: { outcome: 'handle_taken' } };
  }
  if (isUniqueViolation(error, 'activity_events_client_event_key')) {
    return { ok: true, value: { outcome: 'event_taken' } };
  }
  return { ok: false, error };
}

function resultOf(plan: UserWritePlan, row: WriteRow): UserWriteResult {
  const {
    writeOrd: _writeOrd,
    writtenAt,
    writtenProfile,
    writtenEntries,
    writtenQuests,
    newLedger,
    olderLedger,
    rank,
    notified: _notified,
    currentState,
    ...user
  } = row;
  // The guard matched no row: the version moved, or the user is gone.
  if (user.id === null) {
    if (!plan.returnStateOn || currentState === undefined) {
      return { outcome: 'stale', current: undefined };
    }
    return currentState === null
      ? { outcome: 'gone' }
      : { outcome: 'stale', current: stateFromRow(currentState) };
  }
  return {
    outcome: 'written',
    user,
    profile: writtenProfile ? profileFromJson(writtenProfile) : undefined,
    writtenAt,
    history: [...(newLedger ?? []), ...(olderLedger ?? [])]
      .slice(0, plan.historyLimit)
      .map(ledgerFromJson),
    rank: rank == null ? undefined : Number(rank),
    entries: new Map((writtenEntries ?? []).map(({ board, ...entry }) => [board, entry])),
    quests: (writtenQuests ?? []).map(questFromJson),
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
