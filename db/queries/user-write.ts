/**
 * Every write of one user's state, in two round trips and no transaction:
 *
 * 1. `readUserState` — one statement: the user row with its `version`, the
 *    profile, the leaderboard entry and the stored quest states.
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
 *    result says `stale` and the service reads again and retries. Two writes
 *    of one user that run at the same time queue on the guard's row lock for
 *    the length of one statement, not of a transaction with round trips in it.
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
 * Adding an effect (outbox events, handle history, …): add a field to
 * `UserWritePlan`, and one entry to `effects` below — a CTE that reads
 * `FROM guard` (or `WHERE EXISTS (SELECT 1 FROM guard)`), so it, too, happens
 * only when the guard matched. Data-modifying CTEs always run to completion,
 * referenced or not. Every CTE sees the same snapshot and the same `now()`:
 * one clock for every row of a write.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { preparedStatement } from '../prepared.js';
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

/** What a write starts from: read in one statement, without a lock. */
export interface UserState {
  user: UserRow;
  profile: ProfileRow | undefined;
  /** The all-time leaderboard entry; undefined before onboarding. */
  entry: { points: number; teamKey: string | null } | undefined;
  /** The balance, kept on the all-time leaderboard entry (0 before onboarding). */
  points: number;
  quests: Map<string, StoredQuest>;
  /** When the user last replaced an existing handle (handle_history kind `change`): the cooldown's start. */
  lastHandleChangeAt: Date | undefined;
}

const userStateStatement = preparedStatement((db, userId: string) =>
  db
    .selectFrom('users as u')
    .leftJoin('leaderboardEntries as e', 'e.userId', 'u.id')
    .selectAll('u')
    .select((eb) => [
      sql<ProfileJson | null>`(SELECT to_json(p) FROM profiles p WHERE p.user_id = u.id)`.as(
        'profile',
      ),
      'e.points as entryPoints',
      'e.teamKey as entryTeamKey',
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
        .where('h.kind', '=', 'change')
        .orderBy('h.id', 'desc')
        .limit(1)
        .as('lastHandleChangeAt'),
    ])
    .where('u.id', '=', userId),
);

/** The user's state, or undefined when the user does not exist. */
export async function readUserState(
  db: Kysely<Database>,
  userId: string,
): Promise<UserState | undefined> {
  const [row] = await userStateStatement(db, userId);
  if (!row) return undefined;
  const { profile, entryPoints, entryTeamKey, quests, lastHandleChangeAt, ...user } = row;
  return {
    lastHandleChangeAt: lastHandleChangeAt ?? undefined,
    user,
    profile: profile === null ? undefined : profileFromJson(profile),
    entry: entryPoints === null ? undefined : { points: entryPoints, teamKey: entryTeamKey },
    points: entryPoints ?? 0,
    quests: new Map(
      quests.map((quest) => [
        quest.questId,
        {
          ...quest,
          // JSON carries timestamps as text.
          completedAt: quest.completedAt === null ? null : new Date(quest.completedAt),
        },
      ]),
    ),
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
  /** Sets onboarded_at (first time only; a later onboarding keeps the first time). */
  onboard: boolean;
  /** The whole profile to store (insert on first write), or undefined to leave it. */
  profile: ProfileFields | undefined;
  /**
   * The all-time leaderboard entry to store (created when missing), or
   * undefined to leave it. `points` is the balance after the write; the
   * entry's team key is lower(favoriteTeam). reached_at moves only when the
   * points change.
   */
  entry: { points: number; favoriteTeam: string | null } | undefined;
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
  /** The handle's claims and history when the write changes the handle, else undefined. */
  handle?: HandleMove | undefined;
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
    }
  /** The state moved since it was read: nothing was written; read again and retry. */
  | { ok: false; conflict: 'stale' }
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

/** The CTEs after the guard, in order: each writes only rows drawn from `guard`. */
function effects(plan: UserWritePlan): Array<[name: string, statement: RawBuilder<unknown>]> {
  const profile = plan.profile;
  const profileValues = PROFILE_FIELDS.map((field) => sql`${profile?.[field] ?? null}::text`);
  const profileColumns = sql.raw(PROFILE_COLUMNS.slice(1, 9).join(', '));
  const entry = plan.entry;
  const handle = plan.handle;
  return [
    [
      'profile',
      sql`INSERT INTO profiles (user_id, ${profileColumns}, created_at, updated_at)
        SELECT g.id, ${sql.join(profileValues)}, now(), now() FROM guard g
        WHERE ${profile !== undefined}
        ON CONFLICT (user_id) DO UPDATE SET
          ${sql.join(
            PROFILE_COLUMNS.slice(1, 9).map((column) => sql.raw(`${column} = excluded.${column}`)),
          )},
          updated_at = now()
        RETURNING *`,
    ],
    [
      'entry',
      sql`INSERT INTO leaderboard_entries (user_id, points, reached_at, updated_at, team_key)
        SELECT g.id, ${entry?.points ?? 0}::integer, now(), now(), lower(${entry?.favoriteTeam ?? null}::text)
        FROM guard g
        WHERE ${entry !== undefined}
        ON CONFLICT (user_id) DO UPDATE SET
          points = excluded.points,
          team_key = excluded.team_key,
          reached_at = CASE WHEN leaderboard_entries.points = excluded.points
                            THEN leaderboard_entries.reached_at ELSE now() END,
          updated_at = now()
        RETURNING points`,
    ],
    [
      'quests',
      sql`INSERT INTO user_quests (user_id, quest_id, progress, target, status, completed_at, updated_at)
        SELECT g.id, q.quest_id, q.progress, q.target, q.status,
               CASE WHEN q.completed THEN now() END, now()
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${JSON.stringify(
          plan.quests.map((quest) => ({
            quest_id: quest.questId,
            progress: quest.progress,
            target: quest.target,
            status: quest.status,
            completed: quest.completedAt !== null,
          })),
        )}::jsonb) AS q(quest_id text, progress integer, target integer, status text, completed boolean)
        ON CONFLICT (user_id, quest_id) DO UPDATE SET
          progress = excluded.progress,
          target = excluded.target,
          status = excluded.status,
          -- A completion time, once set, never moves.
          completed_at = coalesce(user_quests.completed_at, excluded.completed_at),
          updated_at = now()
        RETURNING quest_id`,
    ],
    [
      'ledger',
      sql`INSERT INTO points_ledger
          (user_id, delta, reason, quest_id, idempotency_key, balance_after, created_at)
        SELECT g.id, c.delta, c.reason, c.quest_id, c.idempotency_key, c.balance_after, now()
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${JSON.stringify(
          plan.credits.map((credit, ord) => ({
            ord,
            delta: credit.delta,
            reason: credit.reason,
            quest_id: credit.questId,
            idempotency_key: credit.key,
            balance_after: credit.balanceAfter,
          })),
        )}::jsonb) AS c(ord integer, delta integer, reason text, quest_id text,
                        idempotency_key text, balance_after integer)
        ORDER BY c.ord
        RETURNING *`,
    ],
    // The claim's row, if it is the user's own or an expired reservation, is
    // removed so that the insert below can take the key; the insert reads
    // this CTE first, so the delete has happened when it runs. Any other row
    // makes the insert fail on the primary key: the statement writes nothing.
    [
      'handle_free',
      sql`DELETE FROM handle_claims c USING guard g
        WHERE c.handle_key = ${handle?.claimKey ?? null}::text
          AND (c.user_id = g.id OR c.reserved_until <= now())
        RETURNING c.handle_key`,
    ],
    [
      'handle_claim',
      sql`INSERT INTO handle_claims (handle_key, user_id, reserved_until, updated_at)
        SELECT ${handle?.claimKey ?? null}::text, g.id, NULL, now() FROM guard g
        WHERE ${handle?.claimKey !== undefined} AND (SELECT count(*) FROM handle_free) >= 0
        RETURNING handle_key`,
    ],
    // Reserved until now() + 0 days is free at once: an expired reservation.
    [
      'handle_release',
      sql`UPDATE handle_claims c SET
          reserved_until = now() + make_interval(days => ${handle?.release?.reserveDays ?? 0}::integer),
          updated_at = now()
        FROM guard g
        WHERE c.handle_key = ${handle?.release?.key ?? null}::text AND c.user_id = g.id
        RETURNING c.handle_key`,
    ],
    [
      'handle_history',
      sql`INSERT INTO handle_history (user_id, old_handle, new_handle, kind, changed_at)
        SELECT g.id, ${handle?.history.oldHandle ?? null}::text, ${handle?.history.newHandle ?? null}::text,
               ${handle?.history.kind ?? null}::text, now()
        FROM guard g
        WHERE ${handle !== undefined}
        RETURNING id`,
    ],
    ...liveEvents(plan),
  ];
}

/** The rank key of entry `e` as one row value: the order of leaderboard_entries_rank_idx. */
const rankKey = (e: string) => sql.raw(`(-${e}.points, ${e}.reached_at, ${e}.user_id)`);

/**
 * The outbox effects: the user's rank moves, the events, their NOTIFY. Ranks
 * are counted over the snapshot the statement reads, i.e. everyone else as
 * they were and this user at the new balance with reached_at = now(); the
 * previous rank is the user's entry as it was (null when they had none, or
 * were on another team's board).
 */
function liveEvents(plan: UserWritePlan): Array<[name: string, statement: RawBuilder<unknown>]> {
  const points = plan.entry?.points ?? 0;
  const team = plan.entry?.favoriteTeam ?? null;
  const events = plan.events ?? [];
  const teamKey = sql`lower(${team}::text)`;
  const newKey = sql`(-${points}::integer, now(), g.id)`;
  const dateText = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return [
    [
      'rank_moves',
      sql`SELECT m.ord, m.board, m.team, m.rank, m.previous_rank
        FROM guard g CROSS JOIN LATERAL (
          SELECT 0 AS ord, 'global' AS board, NULL::text AS team,
            1 + (SELECT count(*) FROM leaderboard_entries a
                 WHERE a.user_id <> g.id AND ${rankKey('a')} < ${newKey}) AS rank,
            (SELECT 1 + (SELECT count(*) FROM leaderboard_entries a
                         WHERE ${rankKey('a')} < ${rankKey('me')})
             FROM leaderboard_entries me WHERE me.user_id = g.id) AS previous_rank
          UNION ALL
          SELECT 1, 'team', ${team}::text,
            1 + (SELECT count(*) FROM leaderboard_entries a
                 WHERE a.team_key = ${teamKey} AND a.user_id <> g.id AND ${rankKey('a')} < ${newKey}),
            (SELECT 1 + (SELECT count(*) FROM leaderboard_entries a
                         WHERE a.team_key = me.team_key AND ${rankKey('a')} < ${rankKey('me')})
             FROM leaderboard_entries me WHERE me.user_id = g.id AND me.team_key = ${teamKey})
          WHERE ${team}::text IS NOT NULL
        ) m
        WHERE ${plan.announceRanks === true && plan.entry !== undefined}
          AND m.rank IS DISTINCT FROM m.previous_rank`,
    ],
    [
      'events',
      sql`INSERT INTO live_events (user_id, type, payload)
        SELECT g.id, e.type,
          CASE WHEN e.type = 'quest_completed'
               THEN jsonb_set(e.payload, '{quest,completedAt}', to_jsonb(${dateText}))
               ELSE e.payload END
        FROM guard g CROSS JOIN (
          SELECT p.ord, p.type, p.payload
          FROM jsonb_to_recordset(${JSON.stringify(
            events.map((event, ord) => ({ ord, type: event.type, payload: event.payload })),
          )}::jsonb) AS p(ord integer, type text, payload jsonb)
          UNION ALL
          SELECT ${events.length}::integer + r.ord, 'rank_changed',
            jsonb_build_object('board', r.board, 'team', r.team, 'rank', r.rank,
                               'previousRank', r.previous_rank)
          FROM rank_moves r
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
  entryPoints: number | null;
  notified: unknown;
}

/**
 * Applies `plan` in one statement if the user is still at `plan.expectedVersion`.
 * See the top of this file.
 */
export async function applyUserWrite(
  db: Kysely<Database>,
  plan: UserWritePlan,
): Promise<UserWriteResult> {
  const guard = sql`UPDATE users SET
      version = version + 1,
      onboarded_at = CASE WHEN ${plan.onboard} THEN coalesce(onboarded_at, now())
                          ELSE onboarded_at END,
      updated_at = CASE WHEN ${plan.onboard} AND onboarded_at IS NULL THEN now()
                        ELSE updated_at END
    WHERE id = ${plan.userId} AND version = ${plan.expectedVersion}
    RETURNING *`;
  const ctes = [['guard', guard] as const, ...effects(plan)].map(
    ([name, statement]) => sql`${sql.id(name)} AS (${statement})`,
  );
  // The snapshot every CTE reads is from before the write: the history is the
  // ledger rows this statement inserted followed by the newest older ones.
  const statement = sql<WriteRow>`WITH ${sql.join(ctes)}
    SELECT g.*, now() AS written_at,
      (SELECT to_json(p) FROM profile p) AS written_profile,
      (SELECT coalesce(json_agg(${LEDGER_JSON} ORDER BY l.id DESC), '[]') FROM ledger l)
        AS new_ledger,
      (SELECT coalesce(json_agg(${LEDGER_JSON} ORDER BY l.id DESC), '[]') FROM (
         SELECT * FROM points_ledger
         WHERE user_id = g.id ORDER BY id DESC LIMIT ${plan.historyLimit}::integer) l)
        AS older_ledger,
      (SELECT points FROM entry) AS entry_points,
      (SELECT count(*) FROM notified) AS notified
    FROM guard g`;

  let row: WriteRow | undefined;
  try {
    ({
      rows: [row],
    } = await statement.execute(db));
  } catch (error) {
    if (
      isUniqueViolation(error, 'profiles_handle_lower_key') ||
      isUniqueViolation(error, 'handle_claims_pkey')
    ) {
      return { ok: false, conflict: 'handle_taken' };
    }
    // Two writers that lock shared rows in different orders: one is told to retry.
    if (isDeadlockOrSerialization(error)) return { ok: false, conflict: 'stale' };
    throw error;
  }
  if (!row) return { ok: false, conflict: 'stale' };
  const { writtenAt, writtenProfile, newLedger, olderLedger, entryPoints, notified, ...user } = row;
  if (plan.entry && entryPoints !== plan.entry.points) {
    // Cannot happen while the guard holds; refuse to report a write that disagrees.
    throw new Error(
      `Leaderboard entry ${entryPoints} does not match the plan (${plan.entry.points})`,
    );
  }
  return {
    ok: true,
    user,
    profile: writtenProfile === null ? undefined : profileFromJson(writtenProfile),
    writtenAt,
    history: [...newLedger, ...olderLedger].slice(0, plan.historyLimit).map(ledgerFromJson),
  };
}
