/**
 * What a write starts from: one user's state, read in one statement without
 * a lock. The same query runs alone (readUserState) and inside the write
 * statement, where a write that finds the state moved returns the state it
 * found instead (statement.ts): one definition for both.
 */
import { sql, type Expression, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import {
  ALL_TIME_BOARD,
  questKey,
  type Database,
  type LedgerRow,
  type ProfileRow,
  type StoredQuest,
  type StoredStreak,
  type UserRow,
} from '../../schema.js';
import { Slot, fill, type CompiledStatements } from '../../statements.js';

/** A user's entry on one board, as stored. */
export interface BoardEntry {
  points: number;
  /** reached_seq, a bigint as text. */
  seq: string;
  teamKey: string | null;
}

/** What a write starts from. */
export interface UserState {
  user: UserRow;
  profile: ProfileRow | undefined;
  /** The user's entries on the boards asked for, by board; no all-time entry before onboarding. */
  entries: Map<string, BoardEntry>;
  /**
   * The balance: the all-time entry's points once onboarded; before, the
   * newest ledger entry's balanceAfter (events award points before onboarding).
   */
  points: number;
  /** The stored quests of the periods asked for, by instanceKey (src/domain/quests.ts). */
  quests: Map<string, StoredQuest>;
  streaks: Map<string, StoredStreak>;
  /** Units recorded (and not reversed) in each usage window asked for, by its key. */
  usage: Map<string, number>;
  /**
   * The stored events among those asked for (scope.recorded), by event id,
   * read in the same snapshot: whoever they belong to.
   */
  recorded: Map<string, RecordedEventRow>;
  /** When the user last replaced an existing handle (handle_history kind `change`): the cooldown's start. */
  lastHandleChangeAt: Date | undefined;
}

/** One window a write sums a user's recorded units of an event type over (a cap's). */
export interface UsageWindow {
  key: string;
  type: string;
  from: Date;
  to: Date;
}

/** What a state read covers besides the user itself. */
export interface StateScope {
  /** The boards whose entries it reads. */
  boards: readonly string[];
  /** The quest periods whose rows it reads ('' for one-time quests). */
  periods: readonly string[];
  usage?: readonly UsageWindow[];
  /** Events of one sender to look up (its ids), whoever they were recorded for. */
  recorded?: { clientId: string; ids: readonly string[] };
}

/** An activity_events row as the state read returns it. */
export interface RecordedEventRow {
  userId: string;
  type: string;
  value: number;
  occurredAt: Date;
  bodyHash: string;
  points: number;
  balanceAfter: number;
  questsCompleted: unknown;
  recordedAt: Date;
  reversedAt: Date | null;
}

/** The scope as the state read takes it: one JSON value. */
export function scopeJson(scope: StateScope): string {
  return JSON.stringify({
    boards: scope.boards,
    periods: scope.periods,
    usage: (scope.usage ?? []).map((w) => ({
      key: w.key,
      type: w.type,
      from_at: w.from.toISOString(),
      to_at: w.to.toISOString(),
    })),
    recorded: scope.recorded ?? { clientId: null, ids: [] },
  });
}

/**
 * The state read: the user's columns, the profile, entries, quests and
 * streaks as JSON, the ledger's balance and the usage sums, for the user
 * `userId` and the scope in the JSON value `scope` (both values or column
 * references).
 */
export function userStateQuery(
  db: Kysely<Database>,
  userId: Expression<string>,
  scope: Expression<string>,
) {
  const listed = (name: string) =>
    sql`ARRAY(SELECT jsonb_array_elements_text(${scope}::jsonb -> ${sql.lit(name)}))`;
  return db
    .selectFrom('users as u')
    .selectAll('u')
    .select((eb) => [
      sql<ProfileJson | null>`(SELECT to_json(p) FROM profiles p WHERE p.user_id = u.id)`.as(
        'profile',
      ),
      jsonArrayFrom(
        eb
          .selectFrom('leaderboardEntries as e')
          .select(['e.board', 'e.points', sql<string>`e.reached_seq::text`.as('seq'), 'e.teamKey'])
          .whereRef('e.userId', '=', 'u.id')
          .where(sql<boolean>`e.board = ANY (${listed('boards')})`),
      ).as('entries'),
      jsonArrayFrom(
        eb
          .selectFrom('userQuests as q')
          .select([
            'q.questId',
            'q.period',
            'q.progress',
            'q.target',
            'q.tiersReached',
            'q.status',
            'q.completedAt',
          ])
          .whereRef('q.userId', '=', 'u.id')
          .where(sql<boolean>`q.period = ANY (${listed('periods')})`),
      ).as('quests'),
      jsonArrayFrom(
        eb
          .selectFrom('userStreaks as k')
          .select(['k.streakId', 'k.current', 'k.best', 'k.lastPeriodStart', 'k.runStartedAt'])
          .whereRef('k.userId', '=', 'u.id'),
      ).as('streaks'),
      eb
        .selectFrom('pointsLedger as l')
        .select('l.balanceAfter')
        .whereRef('l.userId', '=', 'u.id')
        .orderBy('l.id', 'desc')
        .limit(sql.lit(1))
        .as('ledgerBalance'),
      // An array, not an object keyed by window: result keys are camel-cased, values are not.
      sql<{ key: string; units: string | number }[]>`(
        SELECT coalesce(json_agg(json_build_object('key', w.key, 'units', (
          SELECT coalesce(sum(a.value), 0) FROM activity_events a
          WHERE a.user_id = u.id AND a.type = w.type AND a.reversed_at IS NULL
            AND a.occurred_at >= w.from_at AND a.occurred_at < w.to_at))), '[]')
        FROM jsonb_to_recordset(${scope}::jsonb -> 'usage')
          AS w(key text, type text, from_at timestamptz, to_at timestamptz))`.as('usage'),
      sql<RecordedJson[]>`(
        SELECT coalesce(json_agg(json_build_object('event_id', a.event_id, 'user_id', a.user_id,
          'type', a.type, 'value', a.value, 'occurred_at', a.occurred_at,
          'body_hash', a.body_hash, 'points', a.points, 'balance_after', a.balance_after,
          'quests_completed', a.quests_completed, 'recorded_at', a.recorded_at,
          'reversed_at', a.reversed_at)), '[]')
        FROM activity_events a
        WHERE a.client_id = ${scope}::jsonb #>> '{recorded,clientId}'
          AND a.event_id = ANY (ARRAY(
            SELECT jsonb_array_elements_text(${scope}::jsonb #> '{recorded,ids}'))))`.as(
        'recorded',
      ),
      eb
        .selectFrom('handleHistory as h')
        .select('h.changedAt')
        .whereRef('h.userId', '=', 'u.id')
        .where('h.kind', '=', sql.lit('change'))
        .orderBy('h.id', 'desc')
        .limit(sql.lit(1))
        .as('lastHandleChangeAt'),
    ])
    .where('u.id', '=', userId);
}

/**
 * The user's state with their entries on `boards`, or undefined when the
 * user does not exist.
 */
export async function readUserState(
  db: Kysely<Database>,
  statements: CompiledStatements,
  userId: string,
  scope: StateScope = { boards: [ALL_TIME_BOARD], periods: [''] },
): Promise<UserState | undefined> {
  const template = statements.template('user state', (compiler) =>
    userStateQuery(
      compiler,
      arg((a) => a.userId),
      arg((a) => a.scope),
    ).compile(),
  );
  const {
    rows: [row],
  } = await db.executeQuery<StateRow>(fill(template, { userId, scope: scopeJson(scope) }));
  return row && stateFromRow(row);
}

/**
 * The states of several users in one statement (each with its own scope),
 * by user id; a user that does not exist has none.
 */
export async function readUserStates(
  db: Kysely<Database>,
  statements: CompiledStatements,
  reads: readonly { userId: string; scope: StateScope }[],
): Promise<Map<string, UserState>> {
  if (reads.length === 1) {
    const [{ userId, scope }] = reads as [{ userId: string; scope: StateScope }];
    const state = await readUserState(db, statements, userId, scope);
    return new Map(state ? [[userId, state]] : []);
  }
  const template = statements.template('user states', (compiler) =>
    sql`SELECT s.* FROM jsonb_to_recordset(${new Slot((a: { reads: string }) => a.reads)}::jsonb)
        AS state_args(user_id uuid, scope text)
      CROSS JOIN LATERAL (${userStateQuery(
        compiler,
        sql.ref<string>('state_args.user_id'),
        sql.ref<string>('state_args.scope'),
      )}) s`.compile(compiler),
  );
  const args = reads.map(({ userId, scope }) => ({ user_id: userId, scope: scopeJson(scope) }));
  const { rows } = await db.executeQuery<StateRow>(fill(template, { reads: JSON.stringify(args) }));
  return new Map(rows.map((row) => [row.id, stateFromRow(row)]));
}

/** A bound argument of the state read, filled from each call's arguments. */
function arg(read: (args: { userId: string; scope: string }) => string): Expression<string> {
  return sql<string>`${new Slot(read)}`;
}

/**
 * The state read's row. Read alone, the user's timestamps are dates; inside
 * the write statement the whole row is JSON, where timestamps are text.
 */
export type StateRow = Omit<UserRow, 'onboardedAt' | 'createdAt' | 'updatedAt' | 'deletedAt'> & {
  onboardedAt: Date | string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  deletedAt: Date | string | null;
  profile: ProfileJson | null;
  entries: Array<BoardEntry & { board: string }>;
  quests: QuestJson[];
  streaks: StreakJson[];
  ledgerBalance: number | null;
  usage: { key: string; units: string | number }[];
  recorded: RecordedJson[];
  lastHandleChangeAt: Date | string | null;
};

type RecordedJson = Omit<RecordedEventRow, 'occurredAt' | 'recordedAt' | 'reversedAt'> & {
  eventId: string;
  occurredAt: string;
  recordedAt: string;
  reversedAt: string | null;
};

export function stateFromRow(row: StateRow): UserState {
  const {
    profile,
    entries,
    quests,
    streaks,
    ledgerBalance,
    usage,
    recorded,
    lastHandleChangeAt,
    ...user
  } = row;
  const byBoard = new Map(
    entries.map(({ board, ...entry }) => [board, entry satisfies BoardEntry]),
  );
  return {
    lastHandleChangeAt: lastHandleChangeAt === null ? undefined : toDate(lastHandleChangeAt),
    user: {
      ...user,
      onboardedAt: toDateOrNull(user.onboardedAt),
      createdAt: toDate(user.createdAt),
      updatedAt: toDate(user.updatedAt),
      deletedAt: toDateOrNull(user.deletedAt),
    },
    profile: profile === null ? undefined : profileFromJson(profile),
    entries: byBoard,
    points: byBoard.get(ALL_TIME_BOARD)?.points ?? ledgerBalance ?? 0,
    quests: new Map(
      quests.map((quest) => [questKey(quest.questId, quest.period), questFromJson(quest)]),
    ),
    streaks: new Map(streaks.map((streak) => [streak.streakId, streakFromJson(streak)])),
    usage: new Map(usage.map(({ key, units }) => [key, Number(units)])),
    recorded: new Map(
      recorded.map(({ eventId, occurredAt, recordedAt, reversedAt, ...event }) => [
        eventId,
        {
          ...event,
          occurredAt: toDate(occurredAt),
          recordedAt: toDate(recordedAt),
          reversedAt: toDateOrNull(reversedAt),
        },
      ]),
    ),
  };
}

// Rows built as JSON in SQL carry timestamps as text.

export type ProfileJson = Omit<ProfileRow, 'createdAt' | 'updatedAt'> & {
  createdAt: string;
  updatedAt: string;
};

export type LedgerJson = Omit<LedgerRow, 'createdAt' | 'recordedAt'> & {
  createdAt: string;
  recordedAt: string | null;
};

export type QuestJson = Omit<StoredQuest, 'completedAt'> & { completedAt: string | null };

export function profileFromJson(json: ProfileJson): ProfileRow {
  return { ...json, createdAt: new Date(json.createdAt), updatedAt: new Date(json.updatedAt) };
}

export function ledgerFromJson(json: LedgerJson): LedgerRow {
  return {
    ...json,
    createdAt: new Date(json.createdAt),
    recordedAt: toDateOrNull(json.recordedAt),
  };
}

export function questFromJson(json: QuestJson): StoredQuest {
  return { ...json, completedAt: toDateOrNull(json.completedAt) };
}

export type StreakJson = Omit<StoredStreak, 'lastPeriodStart' | 'runStartedAt'> & {
  lastPeriodStart: string | null;
  runStartedAt: string | null;
};

export function streakFromJson(json: StreakJson): StoredStreak {
  return {
    ...json,
    lastPeriodStart: toDateOrNull(json.lastPeriodStart),
    runStartedAt: toDateOrNull(json.runStartedAt),
  };
}

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
const toDateOrNull = (value: Date | string | null): Date | null =>
  value === null ? null : toDate(value);
