/**
 * Every write of one user's state, in at most two round trips and no
 * transaction:
 *
 * 1. `readUserState` — one statement: the user row with its `version`, the
 *    profile, the leaderboard entries and the stored quest states. Skipped
 *    when this instance's last write of the user left its state
 *    (`stateAfterWrite`, kept by src/services/state-cache.ts).
 * 2. The service computes everything with plain functions (src/domain) and
 *    describes the result as a `UserWritePlan`.
 * 3. `applyUserWrite` — ONE data-modifying statement (autocommit) made of
 *    CTEs. The first CTE is the guard:
 *
 *        UPDATE users SET version = version + 1 WHERE id = $1 AND version = $2
 *
 *    and every other CTE draws its rows from it (`INSERT … SELECT … FROM
 *    guard`), so when another write landed since the read (the version moved)
 *    the guard matches no row and the whole statement changes nothing. The
 *    result says `stale`, and the service plans again from a fresh read;
 *    for a plan made from a cached state, the statement runs that read
 *    itself and returns the state it found. Two writes of one user that run
 *    at the same time queue on the guard's row lock for the length of one
 *    statement, not of a transaction with round trips in it.
 *
 * Why this keeps the rules: the plan was computed from the state at `version`
 * and is applied only if the state is still at `version`, so no update is
 * lost and `balanceAfter` (computed from the balance read) is exact. Awards
 * stay exactly-once through the ledger's unique (user_id, idempotency_key).
 * The handle claims' primary key (and the profiles' unique index behind it)
 * judges races between users and reservations: a violation fails the
 * statement (nothing written) and comes back as the typed conflict
 * `handle_taken`; db/ raises no application errors.
 *
 * Board entries and rank counts: the plan lists the entries it changes
 * (`boards`: the all-time board, which keeps the balance, and the current
 * season boards); the statement takes one number from
 * `leaderboard_reached_seq` for every entry whose points change (who reached
 * a score first = who took the smaller number), writes the entries, and moves
 * each changed entry's `rank_counts` rows (−1 on the old position's rows, +1
 * on the new, merged by key, locked in key order: db/queries/rank.ts).
 *
 * Adding an effect (outbox events, handle history, …): add a field to
 * `UserWritePlan`, and one entry to `effects` below — a CTE that reads
 * `FROM guard` (or `WHERE EXISTS (SELECT 1 FROM guard)`), so it, too, happens
 * only when the guard matched. Data-modifying CTEs always run to completion,
 * referenced or not. Every CTE sees the same snapshot and the same `now()`:
 * one clock for every row of a write.
 */
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import {
  fillTemplate,
  preparedStatement,
  Slot,
  templateOf,
  type StatementTemplate,
} from '../prepared.js';
import {
  PROFILE_FIELDS,
  type Database,
  type HandleHistoryRow,
  type LedgerRow,
  type ProfileFields,
  type ProfileRow,
  type StoredQuest,
  type UserRow,
} from '../schema.js';
import { isDeadlockOrSerialization, isUniqueViolation } from './errors.js';
import { LIVE_CHANNEL, notificationOf } from './events.js';
import { teamKey } from '../team-key.js';
import { countBucket, countDeltas, rankExpression, SHARDS, type CountDelta } from './rank.js';

/** The board that keeps the balance (db/schema.ts describes board names). */
export const ALL_TIME_BOARD = 'all';

/** A user's entry on one board, as stored. */
export interface BoardEntry {
  points: number;
  /** reached_seq, a bigint as text. */
  seq: string;
  teamKey: string | null;
}

/** What a write starts from: read in one statement, without a lock. */
export interface UserState {
  user: UserRow;
  profile: ProfileRow | undefined;
  /** The user's entries on the boards asked for, by board; no all-time entry before onboarding. */
  entries: Map<string, BoardEntry>;
  /** The balance, kept on the all-time leaderboard entry (0 before onboarding). */
  points: number;
  quests: Map<string, StoredQuest>;
  /** When the user last replaced an existing handle (handle_history kind `change`): the cooldown's start. */
  lastHandleChangeAt: Date | undefined;
}

/**
 * The state read: the user's columns, the profile and quests and entries as
 * JSON. Run alone (readUserState), and inside the write statement, where a
 * write that finds the state moved returns the state it found instead
 * (applyUserWrite): one query for both.
 */
function userStateQuery(
  db: Kysely<Database>,
  userId: string | Expression<string>,
  boardsJson: string | Expression<string>,
) {
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
          .where(
            sql<boolean>`e.board = ANY (ARRAY(SELECT jsonb_array_elements_text(${boardsJson}::jsonb)))`,
          ),
      ).as('entries'),
      jsonArrayFrom(
        eb
          .selectFrom('userQuests as q')
          .select(['q.questId', 'q.progress', 'q.target', 'q.status', 'q.completedAt'])
          .whereRef('q.userId', '=', 'u.id'),
      ).as('quests'),
      eb
        .selectFrom('handleHistory as h')
        .select('h.changedAt')
        .whereRef('h.userId', '=', 'u.id')
        // Literals, not bound values: stateReadSql embeds this read as text.
        .where('h.kind', '=', sql.lit('change'))
        .orderBy('h.id', 'desc')
        .limit(sql.lit(1))
        .as('lastHandleChangeAt'),
    ])
    .where('u.id', '=', userId);
}

const userStateStatement = preparedStatement(userStateQuery);

/**
 * The same read as SQL text for the write statement, compiled once (Kysely
 * would otherwise rebuild and compile it on every write): its user id and
 * boards are the columns of a row `state_args` the statement supplies.
 */
let stateReadInWrite: string | undefined;
function stateReadSql(db: Kysely<Database>): string {
  if (stateReadInWrite === undefined) {
    const compiled = userStateQuery(
      db,
      sql.ref<string>('state_args.user_id'),
      sql.ref<string>('state_args.boards'),
    ).compile();
    // Text only: a bound value would take the number of one of the write's.
    if (compiled.parameters.length > 0) throw new Error('the state read must bind no values');
    stateReadInWrite = compiled.sql;
  }
  return stateReadInWrite;
}

/**
 * The state read's row. Read alone, the user's timestamps are dates; inside
 * the write statement the whole row is JSON, where timestamps are text.
 */
type StateRow = Omit<UserRow, 'onboardedAt' | 'createdAt' | 'updatedAt' | 'deletedAt'> & {
  onboardedAt: Date | string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  deletedAt: Date | string | null;
  profile: ProfileJson | null;
  entries: Array<BoardEntry & { board: string }>;
  quests: Array<Omit<StoredQuest, 'completedAt'> & { completedAt: string | null }>;
  lastHandleChangeAt: Date | string | null;
};

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
const toDateOrNull = (value: Date | string | null): Date | null =>
  value === null ? null : toDate(value);

function stateFromRow(row: StateRow): UserState {
  const { profile, entries, quests, lastHandleChangeAt, ...user } = row;
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
    points: byBoard.get(ALL_TIME_BOARD)?.points ?? 0,
    quests: new Map(
      quests.map((quest) => [
        quest.questId,
        // JSON carries timestamps as text.
        { ...quest, completedAt: toDateOrNull(quest.completedAt) },
      ]),
    ),
  };
}

/**
 * The user's state with their entries on `boards`, or undefined when the
 * user does not exist.
 */
export async function readUserState(
  db: Kysely<Database>,
  userId: string,
  boards: readonly string[] = [ALL_TIME_BOARD],
): Promise<UserState | undefined> {
  const [row] = await userStateStatement(db, userId, JSON.stringify(boards));
  return row && stateFromRow(row as StateRow);
}

/**
 * The state after a write that succeeded, from the state it was planned on
 * and what the statement returned: everything readUserState would now read
 * for the same boards (test/integration/state-cache.test.ts compares the two
 * after every kind of write).
 */
export function stateAfterWrite(
  state: UserState,
  plan: UserWritePlan,
  result: Extract<UserWriteResult, { ok: true }>,
): UserState {
  const entries = new Map(state.entries);
  for (const [board, entry] of result.entries) entries.set(board, entry);
  const quests = new Map(state.quests);
  for (const quest of result.quests) quests.set(quest.questId, quest);
  return {
    user: result.user,
    profile: result.profile ?? state.profile,
    entries,
    points: entries.get(ALL_TIME_BOARD)?.points ?? 0,
    quests,
    lastHandleChangeAt:
      plan.handle?.history.kind === 'change' ? result.writtenAt : state.lastHandleChangeAt,
  };
}

/** One ledger credit. `key` is unique per user: the same award can never land twice. */
export interface LedgerCredit {
  key: string;
  delta: number;
  reason: string;
  questId: string | null;
  /** The balance after this credit, computed from the balance read with the plan. */
  balanceAfter: number;
}

/**
 * Everything one write changes, computed from the state read at
 * `expectedVersion`. Every timestamp written is the statement's `now()`.
 */
export interface UserWritePlan {
  userId: string;
  expectedVersion: number;
  /**
   * Set when the plan was made from a cached state (src/services/state-cache.ts):
   * a write that finds the version moved then returns the state it found, with
   * the entries on these boards, so the retry needs no read of its own.
   */
  returnStateOnBoards?: readonly string[] | undefined;
  /** Sets onboarded_at (first time only; a later onboarding keeps the first time). */
  onboard: boolean;
  /** The whole profile to store (insert on first write), or undefined to leave it. */
  profile: ProfileFields | undefined;
  /**
   * The board entries this write stores (created when `before` is undefined).
   * On the all-time board `points` is the balance after the write. An entry
   * whose points change takes the write's new sequence number (and
   * reached_at); one whose points stay keeps both.
   */
  boards: readonly BoardWrite[];
  /**
   * The holder's team after the write. Entries created, and all entries
   * written when `changed`, get team_key = teamKey(favoriteTeam) (db/team-key.ts); others keep theirs.
   */
  team: { favoriteTeam: string | null; changed: boolean };
  /** Quest states whose stored progress, target or status change. */
  quests: readonly StoredQuest[];
  /** Ledger credits, in the order their balances were computed. */
  credits: readonly LedgerCredit[];
  /**
   * Outbox events (docs/LIVE.md), in order, inserted and announced (NOTIFY,
   * delivered on commit) by this same statement. A `quest_completed`
   * payload's `quest.completedAt` is set to the statement's clock. With
   * `announceRanks`, the user's rank moves on the whole board and on their
   * team's board follow as `rank_changed` events, computed in the statement
   * from the snapshot it writes over.
   */
  events?: readonly { type: string; payload: unknown }[];
  announceRanks?: boolean;
  /** Also return the newest ledger entries (after the write), up to this many. */
  historyLimit: number;
  /** Also return the all-time rank after the write (the entry must exist after it). */
  rank: boolean;
  /** The handle's claims and history when the write changes the handle, else undefined. */
  handle?: HandleMove | undefined;
}

/** One board entry a write stores. */
export interface BoardWrite {
  board: string;
  /** The entry as read with the plan; undefined when the write creates it. */
  before: BoardEntry | undefined;
  points: number;
}

/**
 * A change of the stored handle. The claim on the new key is the database's
 * judgement: the user's own row (held, or reserved for them) or an expired
 * reservation is taken over, anything else makes the insert fail on
 * handle_claims_pkey and the whole statement write nothing (`handle_taken`).
 */
export interface HandleMove {
  /** The key to claim (a first handle or another handle); undefined for a change of letter case. */
  claimKey: string | undefined;
  /** The key given up, reserved for the user for `reserveDays` (0: free at once). */
  release: { key: string; reserveDays: number } | undefined;
  /** The handle_history row. */
  history: Pick<HandleHistoryRow, 'oldHandle' | 'newHandle' | 'kind'>;
}

export type UserWriteResult =
  | {
      ok: true;
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
   * `returnStateOnBoards`, `current` is the state the statement found
   * (undefined after a deadlock: read again). It can be no newer than the
   * plan's when the write waited for another one that committed after the
   * statement began.
   */
  | { ok: false; conflict: 'stale'; current: UserState | undefined }
  /** The user no longer exists: nothing was written. */
  | { ok: false; conflict: 'gone' }
  /**
   * The handle belongs to another user in any letter case, or is reserved
   * for someone else: nothing was written.
   */
  | { ok: false; conflict: 'handle_taken' };

/** The profile columns in SQL spelling, for JSON built in SQL. */
const PROFILE_COLUMNS = [
  'user_id',
  'name',
  'handle',
  'location',
  'favorite_sport',
  'favorite_team',
  'favorite_player',
  'rival_team',
  'profile_url',
  'created_at',
  'updated_at',
] as const;

type ProfileJson = Omit<ProfileRow, 'createdAt' | 'updatedAt'> & {
  createdAt: string;
  updatedAt: string;
};

function profileFromJson(json: ProfileJson): ProfileRow {
  return { ...json, createdAt: new Date(json.createdAt), updatedAt: new Date(json.updatedAt) };
}

interface LedgerJson extends Omit<LedgerRow, 'createdAt'> {
  createdAt: string;
}

const ledgerFromJson = (json: LedgerJson): LedgerRow => ({
  ...json,
  createdAt: new Date(json.createdAt),
});

const LEDGER_JSON = sql`json_build_object('id', l.id::text, 'user_id', l.user_id,
  'delta', l.delta, 'reason', l.reason, 'quest_id', l.quest_id,
  'idempotency_key', l.idempotency_key, 'balance_after', l.balance_after,
  'created_at', l.created_at)`;

type Cte = [name: string, statement: RawBuilder<unknown>];

/**
 * Every choice the write statement's text depends on. The statement is built
 * and compiled once per shape, with Slots for its values (db/prepared.ts),
 * and each shape is a named statement of its own: a write only computes its
 * values (`writeValues`) and fills them in. Building and compiling the
 * statement's tree on every write was the largest part of a PATCH's CPU and
 * of its garbage (docs/PERFORMANCE.md, "The write statement, compiled once
 * per shape").
 */
interface WriteShape {
  profile: boolean;
  boards: boolean;
  quests: boolean;
  credits: boolean;
  handle: boolean;
  claim: boolean;
  release: boolean;
  /** The outbox CTEs: none, the events, or the events and the rank moves. */
  live: 'none' | 'events' | 'announce';
  /** With `announce`: the user had an all-time entry before the write. */
  before: boolean;
  /** With `announce`: that entry was on a team's board. */
  beforeTeam: boolean;
  /** With `announce`: the user has a team after the write. */
  team: boolean;
  history: boolean;
  rank: boolean;
  returnState: boolean;
}

function writeShape(plan: UserWritePlan): WriteShape {
  const events = plan.events ?? [];
  const allTime = plan.boards.find((write) => write.board === ALL_TIME_BOARD);
  const announce = plan.announceRanks === true && allTime !== undefined;
  return {
    profile: plan.profile !== undefined,
    boards: plan.boards.length > 0,
    quests: plan.quests.length > 0,
    credits: plan.credits.length > 0,
    handle: plan.handle !== undefined,
    claim: plan.handle?.claimKey !== undefined,
    release: plan.handle?.release !== undefined,
    live: announce ? 'announce' : events.length > 0 ? 'events' : 'none',
    before: announce && allTime.before !== undefined,
    beforeTeam: announce && Boolean(allTime.before?.teamKey),
    team: announce && plan.team.favoriteTeam !== null,
    history: plan.historyLimit > 0,
    rank: plan.rank,
    returnState: plan.returnStateOnBoards !== undefined,
  };
}

/** The statement's bound values: everything of a plan that is not its shape. */
function writeValues(plan: UserWritePlan) {
  const profile = plan.profile;
  const team = plan.team.favoriteTeam;
  const boards = plan.boards.map((write) => {
    const keepsPlace = write.before !== undefined && write.before.points === write.points;
    const newTeam = write.before === undefined || plan.team.changed;
    return {
      board: write.board,
      points: write.points,
      seq: keepsPlace ? write.before!.seq : null,
      new_team: newTeam,
      team_key: newTeam ? null : write.before!.teamKey,
    };
  });
  const deltas: CountDelta[] = plan.boards.flatMap((write, index) => {
    const after = boards[index]!;
    const leave = write.before ? countDeltas(write.board, write.before, -1) : [];
    const take = countDeltas(
      write.board,
      { points: after.points, seq: after.seq, teamKey: after.new_team ? 'new' : after.team_key },
      1,
    );
    return [...leave, ...take];
  });
  const handle = plan.handle;
  const events = plan.events ?? [];
  return {
    userId: plan.userId,
    expectedVersion: plan.expectedVersion,
    onboard: plan.onboard,
    ...(Object.fromEntries(PROFILE_FIELDS.map((field) => [field, profile?.[field] ?? null])) as {
      [field in keyof ProfileFields]: string | null;
    }),
    team,
    newTeamKey: team === null ? null : teamKey(team),
    newSeq: boards.some((write) => write.seq === null),
    boards: JSON.stringify(boards),
    deltas: JSON.stringify(deltas),
    quests: JSON.stringify(
      plan.quests.map((quest) => ({
        quest_id: quest.questId,
        progress: quest.progress,
        target: quest.target,
        status: quest.status,
        completed: quest.completedAt !== null,
      })),
    ),
    credits: JSON.stringify(
      plan.credits.map((credit, ord) => ({
        ord,
        delta: credit.delta,
        reason: credit.reason,
        quest_id: credit.questId,
        idempotency_key: credit.key,
        balance_after: credit.balanceAfter,
      })),
    ),
    claimKey: handle?.claimKey ?? null,
    releaseKey: handle?.release?.key ?? null,
    reserveDays: handle?.release?.reserveDays ?? 0,
    oldHandle: handle?.history.oldHandle ?? null,
    newHandle: handle?.history.newHandle ?? null,
    handleKind: handle?.history.kind ?? null,
    events: JSON.stringify(
      events.map((event, ord) => ({ ord, type: event.type, payload: event.payload })),
    ),
    eventCount: events.length,
    historyLimit: plan.historyLimit,
    stateBoards: JSON.stringify(plan.returnStateOnBoards ?? []),
  };
}

type WriteValues = ReturnType<typeof writeValues>;

/** A Slot per value: what the statement is built with, once per shape. */
const SLOTS = new Proxy({} as Record<keyof WriteValues, Slot>, {
  get: (_target, key) => new Slot(String(key)),
});

/**
 * The CTEs after the guard, in order: each writes only rows drawn from `guard`.
 * No CTE may take a table's name: the state read inside the statement
 * (applyUserWrite's `current_state`) names the tables. Only the CTEs this
 * plan needs are sent: planning CTEs that write nothing cost more than
 * running the ones that do (docs/PERFORMANCE.md, "Only the CTEs a write
 * needs"). `v` holds Slots: a value may only be bound, never decide the text.
 */
function effects(shape: WriteShape, v: Record<keyof WriteValues, Slot>): Cte[] {
  const profileValues = PROFILE_FIELDS.map((field) => sql`${v[field]}::text`);
  const profileColumns = sql.raw(PROFILE_COLUMNS.slice(1, 9).join(', '));
  const needed = (include: boolean, ...ctes: Cte[]) => (include ? ctes : []);
  return [
    ...needed(shape.profile, [
      'profile',
      sql`INSERT INTO profiles (user_id, ${profileColumns}, created_at, updated_at)
        SELECT g.id, ${sql.join(profileValues)}, now(), now() FROM guard g
        ON CONFLICT (user_id) DO UPDATE SET
          ${sql.join(
            PROFILE_COLUMNS.slice(1, 9).map((column) => sql.raw(`${column} = excluded.${column}`)),
          )},
          updated_at = now()
        RETURNING *`,
    ]),
    ...needed(
      shape.boards,
      [
        // One number for every entry whose points change: who reached a score first.
        'seq',
        sql`SELECT CASE WHEN ${v.newSeq}
                      THEN nextval('leaderboard_reached_seq') END AS seq
        FROM guard`,
      ],
      [
        'entries',
        sql`INSERT INTO leaderboard_entries
          (board, user_id, points, reached_seq, reached_at, updated_at, team_key)
        SELECT b.board, g.id, b.points, coalesce(b.seq, s.seq), now(), now(),
               CASE WHEN b.new_team THEN ${v.newTeamKey}::text ELSE b.team_key END
        FROM guard g CROSS JOIN seq s
        CROSS JOIN jsonb_to_recordset(${v.boards}::jsonb)
          AS b(board text, points integer, seq bigint, new_team boolean, team_key text)
        ON CONFLICT (board, user_id) DO UPDATE SET
          points = excluded.points,
          reached_seq = excluded.reached_seq,
          reached_at = CASE WHEN leaderboard_entries.reached_seq = excluded.reached_seq
                            THEN leaderboard_entries.reached_at ELSE now() END,
          team_key = excluded.team_key,
          updated_at = now()
        RETURNING board, points, reached_seq, team_key`,
      ],
      [
        // −1 on the rows of each entry's old position, +1 on its new one, merged
        // by key (a move that keeps a key cancels out), in key order so two
        // writers never wait on each other's rows in opposite orders; each key
        // lands on a random shard (db/queries/rank.ts).
        'counts',
        sql`INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
        SELECT k.board, k.team_key, k.level, k.points, k.bucket,
               floor(random() * ${SHARDS})::smallint, k.n
        FROM (
          SELECT d.board,
                 CASE WHEN d.new_team THEN ${v.newTeamKey}::text ELSE d.team_key END AS team_key,
                 d.level, d.points,
                 ${countBucket(sql`coalesce(d.seq, s.seq)`, sql`d.level`)} AS bucket,
                 sum(d.n) AS n
          FROM guard g CROSS JOIN seq s
          CROSS JOIN jsonb_to_recordset(${v.deltas}::jsonb)
            AS d(board text, team_key text, new_team boolean, level smallint, points integer,
                 seq bigint, n integer)
          GROUP BY 1, 2, 3, 4, 5
        ) AS k
        WHERE k.team_key IS NOT NULL AND k.n <> 0
        ORDER BY k.board, k.team_key, k.level, k.points, k.bucket
        ON CONFLICT (board, team_key, level, points, bucket, shard)
          DO UPDATE SET n = rank_counts.n + excluded.n
        RETURNING 1`,
      ],
    ),
    ...needed(shape.quests, [
      'quests',
      sql`INSERT INTO user_quests (user_id, quest_id, progress, target, status, completed_at, updated_at)
        SELECT g.id, q.quest_id, q.progress, q.target, q.status,
               CASE WHEN q.completed THEN now() END, now()
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${v.quests}::jsonb) AS q(quest_id text, progress integer, target integer, status text, completed boolean)
        ON CONFLICT (user_id, quest_id) DO UPDATE SET
          progress = excluded.progress,
          target = excluded.target,
          status = excluded.status,
          -- A completion time, once set, never moves.
          completed_at = coalesce(user_quests.completed_at, excluded.completed_at),
          updated_at = now()
        RETURNING quest_id, progress, target, status, completed_at`,
    ]),
    ...needed(shape.credits, [
      'ledger',
      sql`INSERT INTO points_ledger
          (user_id, delta, reason, quest_id, idempotency_key, balance_after, created_at)
        SELECT g.id, c.delta, c.reason, c.quest_id, c.idempotency_key, c.balance_after, now()
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${v.credits}::jsonb) AS c(ord integer, delta integer, reason text, quest_id text,
                        idempotency_key text, balance_after integer)
        ORDER BY c.ord
        RETURNING *`,
    ]),
    // The claim's row, if it is the user's own or an expired reservation, is
    // removed so that the insert below can take the key; the insert reads
    // this CTE first, so the delete has happened when it runs. Any other row
    // makes the insert fail on the primary key: the statement writes nothing.
    ...needed(
      shape.claim,
      [
        'handle_free',
        sql`DELETE FROM handle_claims c USING guard g
        WHERE c.handle_key = ${v.claimKey}::text
          AND (c.user_id = g.id OR c.reserved_until <= now())
        RETURNING c.handle_key`,
      ],
      [
        'handle_claim',
        sql`INSERT INTO handle_claims (handle_key, user_id, reserved_until, updated_at)
        SELECT ${v.claimKey}::text, g.id, NULL, now() FROM guard g
        WHERE (SELECT count(*) FROM handle_free) >= 0
        RETURNING handle_key`,
      ],
    ),
    // Reserved until now() + 0 days is free at once: an expired reservation.
    ...needed(shape.release, [
      'handle_release',
      sql`UPDATE handle_claims c SET
          reserved_until = now() + make_interval(days => ${v.reserveDays}::integer),
          updated_at = now()
        FROM guard g
        WHERE c.handle_key = ${v.releaseKey}::text AND c.user_id = g.id
        RETURNING c.handle_key`,
    ]),
    ...needed(shape.handle, [
      'handle_logged',
      sql`INSERT INTO handle_history (user_id, old_handle, new_handle, kind, changed_at)
        SELECT g.id, ${v.oldHandle}::text, ${v.newHandle}::text, ${v.handleKind}::text, now()
        FROM guard g
        RETURNING id`,
    ]),
    ...liveEvents(shape, v),
  ];
}

/**
 * The outbox effects: the user's rank moves, the events, their NOTIFY. The
 * new ranks are the all-time entry as this statement writes it, ranked over
 * the snapshot the statement reads (db/queries/rank.ts: everyone else as they
 * were); the previous rank is the stored entry in the same snapshot (null
 * when the user had none, or was on another team's board).
 */
function liveEvents(shape: WriteShape, v: Record<keyof WriteValues, Slot>): Cte[] {
  if (shape.live === 'none') return [];
  const announce = shape.live === 'announce';
  // Rank expressions are only sent where they can have a value: a previous
  // rank needs a stored all-time entry, a team rank a team.
  const before = shape.before;
  const dateText = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const at = (alias: string, teamKey: RawBuilder<string> | undefined) =>
    rankExpression({
      board: sql<string>`${ALL_TIME_BOARD}::text`,
      teamKey,
      points: sql.ref(`${alias}.points`),
      seq: sql.ref(`${alias}.reached_seq`),
    });
  const moves: Cte[] = [
    [
      // The user's ranks after the write (and before it), whether they moved or
      // not: the statement's result takes the all-time rank from here too.
      'ranks',
      sql`SELECT m.ord, m.board, m.team, m.rank::bigint AS rank,
                 m.previous_rank::bigint AS previous_rank
        FROM guard g
        JOIN entries n ON n.board = ${ALL_TIME_BOARD}
        ${
          before
            ? sql`LEFT JOIN leaderboard_entries me
                    ON me.board = ${ALL_TIME_BOARD} AND me.user_id = g.id`
            : sql``
        }
        CROSS JOIN LATERAL (
          SELECT 0 AS ord, 'global' AS board, NULL::text AS team,
                 ${at('n', undefined)} AS rank,
                 ${
                   before
                     ? sql`CASE WHEN me.user_id IS NOT NULL THEN ${at('me', undefined)} END`
                     : sql`NULL`
                 } AS previous_rank
          ${
            !shape.team
              ? sql``
              : sql`UNION ALL
          SELECT 1, 'team', ${v.team}::text,
                 ${at('n', sql<string>`n.team_key`)},
                 ${
                   shape.beforeTeam
                     ? sql`CASE WHEN me.team_key = n.team_key
                               THEN ${at('me', sql<string>`me.team_key`)} END`
                     : sql`NULL`
                 }
          WHERE n.team_key IS NOT NULL`
          }
        ) m`,
    ],
  ];
  return [
    ...(announce ? moves : []),
    [
      'events',
      sql`INSERT INTO live_events (user_id, type, payload)
        SELECT g.id, e.type,
          CASE WHEN e.type = 'quest_completed'
               THEN jsonb_set(e.payload, '{quest,completedAt}', to_jsonb(${dateText}))
               ELSE e.payload END
        FROM guard g CROSS JOIN (
          SELECT p.ord, p.type, p.payload
          FROM jsonb_to_recordset(${v.events}::jsonb) AS p(ord integer, type text, payload jsonb)
          ${
            announce
              ? sql`UNION ALL
          SELECT ${v.eventCount}::integer + r.ord, 'rank_changed',
            jsonb_build_object('board', r.board, 'team', r.team, 'rank', r.rank,
                               'previousRank', r.previous_rank)
          FROM ranks r WHERE r.rank IS DISTINCT FROM r.previous_rank`
              : sql``
          }
        ) e
        ORDER BY e.ord
        RETURNING id, user_id, type, payload, created_at`,
    ],
    ['notified', notificationOf('events')],
  ];
}

interface WriteRow extends UserRow {
  writtenAt: Date;
  writtenProfile: ProfileJson | null;
  newLedger: LedgerJson[];
  olderLedger: LedgerJson[];
  writtenEntries: Array<BoardEntry & { board: string }>;
  writtenQuests: Array<Omit<StoredQuest, 'completedAt'> & { completedAt: string | null }>;
  rank: string | null;
  notified: unknown;
  /** Only when the guard matched no row: the state the statement found, or null without a user. */
  currentState: StateRow | null;
}

/** The write statement of `shape`; `v` holds Slots (see `effects`). */
function writeStatement(
  db: Kysely<Database>,
  shape: WriteShape,
  v: Record<keyof WriteValues, Slot>,
): RawBuilder<WriteRow> {
  const guard = sql`UPDATE users SET
      version = version + 1,
      onboarded_at = CASE WHEN ${v.onboard} THEN coalesce(onboarded_at, now())
                          ELSE onboarded_at END,
      updated_at = CASE WHEN ${v.onboard} AND onboarded_at IS NULL THEN now()
                        ELSE updated_at END
    WHERE id = ${v.userId} AND version = ${v.expectedVersion}
    RETURNING *`;
  const effectList = effects(shape, v);
  const has = new Set(effectList.map(([name]) => name));
  const ctes = [['guard', guard] as const, ...effectList].map(
    ([name, statement]) => sql`${sql.id(name)} AS (${statement})`,
  );
  // A CTE left out wrote nothing: its column is what it would have returned.
  const from = (cte: string, value: RawBuilder<unknown>, empty: string) =>
    has.has(cte) ? value : sql.raw(empty);
  // The snapshot every CTE reads is from before the write: the history is the
  // ledger rows this statement inserted followed by the newest older ones.
  return sql<WriteRow>`WITH ${sql.join(ctes)}
    SELECT g.*, now() AS written_at,
      ${from('profile', sql`(SELECT to_json(p) FROM profile p)`, 'NULL::json')} AS written_profile,
      ${from(
        'ledger',
        sql`(SELECT coalesce(json_agg(${LEDGER_JSON} ORDER BY l.id DESC), '[]') FROM ledger l)`,
        `'[]'::json`,
      )} AS new_ledger,
      ${
        shape.history
          ? sql`(SELECT coalesce(json_agg(${LEDGER_JSON} ORDER BY l.id DESC), '[]') FROM (
         SELECT * FROM points_ledger
         WHERE user_id = g.id ORDER BY id DESC LIMIT ${v.historyLimit}::integer) l)`
          : sql`'[]'::json`
      } AS older_ledger,
      ${from(
        'entries',
        sql`(SELECT coalesce(json_agg(json_build_object('board', e.board, 'points', e.points,
                'seq', e.reached_seq::text, 'team_key', e.team_key)), '[]')
         FROM entries e)`,
        `'[]'::json`,
      )} AS written_entries,
      ${from(
        'quests',
        sql`(SELECT coalesce(json_agg(json_build_object('quest_id', q.quest_id,
                'progress', q.progress, 'target', q.target, 'status', q.status,
                'completed_at', q.completed_at)), '[]')
         FROM quests q)`,
        `'[]'::json`,
      )} AS written_quests,
      ${
        !shape.rank
          ? sql`NULL`
          : has.has('ranks')
            ? sql`(SELECT rank::text FROM ranks WHERE ord = 0)`
            : sql`CASE WHEN g.id IS NOT NULL THEN ${allTimeRank(has.has('entries'))} END`
      } AS rank,
      ${from('notified', sql`(SELECT count(*) FROM notified)`, '0')} AS notified,
      ${
        shape.returnState
          ? sql`CASE WHEN g.id IS NULL THEN (
        SELECT to_json(s)
        FROM (SELECT ${v.userId}::uuid AS user_id,
                     ${v.stateBoards}::text AS boards) AS state_args
        CROSS JOIN LATERAL (${sql.raw(stateReadSql(db))}) s
      ) END`
          : sql`NULL::json`
      } AS current_state
    FROM (SELECT 1) AS one LEFT JOIN guard g ON true`;
}

/** The write statement of each shape, compiled (writeTemplate). */
const templates = new Map<string, StatementTemplate>();
/** Shapes past this many are compiled on every write (they would be rare ones). */
const MAX_TEMPLATES = 256;

/**
 * The statement for plans of `shape`, with Slots for its values, compiled
 * once. It is compiled on `db` without its plugins: it is raw SQL in the
 * database's own snake_case names (the embedded state read is compiled
 * once, with them). Its rows still come back through `db` and its plugins.
 */
function writeTemplate(db: Kysely<Database>, shape: WriteShape): StatementTemplate {
  const key = Object.values(shape).join();
  let template = templates.get(key);
  if (!template) {
    template = templateOf(writeStatement(db, shape, SLOTS).compile(db.withoutPlugins()));
    if (templates.size < MAX_TEMPLATES) templates.set(key, template);
  }
  return template;
}

/**
 * Applies `plan` in one statement if the user is still at `plan.expectedVersion`.
 * See the top of this file.
 */
export async function applyUserWrite(
  db: Kysely<Database>,
  plan: UserWritePlan,
): Promise<UserWriteResult> {
  const values = writeValues(plan);
  const compiled = fillTemplate(
    writeTemplate(db, writeShape(plan)),
    (key) => values[key as keyof WriteValues],
  );
  let row: WriteRow | undefined;
  try {
    ({
      rows: [row],
    } = await db.executeQuery<WriteRow>(compiled));
  } catch (error) {
    if (
      isUniqueViolation(error, 'profiles_handle_lower_key') ||
      isUniqueViolation(error, 'handle_claims_pkey')
    ) {
      return { ok: false, conflict: 'handle_taken' };
    }
    // Two writers that lock shared rows in different orders: one is told to retry.
    if (isDeadlockOrSerialization(error)) {
      return { ok: false, conflict: 'stale', current: undefined };
    }
    throw error;
  }
  if (!row) throw new Error('the write statement returned no row');
  const {
    writtenAt,
    writtenProfile,
    newLedger,
    olderLedger,
    writtenEntries,
    writtenQuests,
    rank,
    notified: _notified,
    currentState,
    ...user
  } = row;
  // The guard matched no row: the version moved, or the user is gone.
  if (user.id === null) {
    if (!plan.returnStateOnBoards) return { ok: false, conflict: 'stale', current: undefined };
    return currentState === null
      ? { ok: false, conflict: 'gone' }
      : { ok: false, conflict: 'stale', current: stateFromRow(currentState) };
  }
  return {
    ok: true,
    user,
    profile: writtenProfile === null ? undefined : profileFromJson(writtenProfile),
    writtenAt,
    history: [...newLedger, ...olderLedger].slice(0, plan.historyLimit).map(ledgerFromJson),
    rank: rank === null ? undefined : Number(rank),
    entries: new Map(writtenEntries.map(({ board, ...entry }) => [board, entry])),
    quests: writtenQuests.map((quest) => ({
      ...quest,
      completedAt: toDateOrNull(quest.completedAt),
    })),
  };
}

/**
 * The all-time entry's rank after the write, from the same statement. Every
 * CTE reads the snapshot from before the write, and the rank counts only
 * entries strictly ahead, so the user's own old entry never counts (points
 * only grow, and an entry that keeps its points keeps its place) and every
 * entry visible took its number before this write took its own: a user who
 * has just reached a score is last among those who hold it.
 */
function allTimeRank(writesEntries: boolean): RawBuilder<string> {
  // The entry as written, or as stored when this write leaves it alone.
  const stored = (column: string) =>
    sql`(SELECT ${sql.raw(column)} FROM leaderboard_entries
       WHERE board = ${ALL_TIME_BOARD} AND user_id = g.id)`;
  const position = (column: string) =>
    writesEntries
      ? sql`coalesce(
      (SELECT ${sql.raw(column)} FROM entries WHERE board = ${ALL_TIME_BOARD}), ${stored(column)})`
      : stored(column);
  return sql<string>`(SELECT ${rankExpression({
    board: sql<string>`${ALL_TIME_BOARD}::text`,
    teamKey: undefined,
    points: sql.ref('pos.points'),
    seq: sql.ref('pos.seq'),
  })} FROM (SELECT ${position('points')} AS points, ${position('reached_seq')} AS seq) pos)`;
}
