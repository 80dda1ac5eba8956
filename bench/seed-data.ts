import { sql, type Kysely } from 'kysely';
import { rebuildRankCounts } from '../db/queries/rank.js';
import type { Database } from '../db/schema.js';

/**
 * Seeds N onboarded users inside the database (generate_series, no row
 * crosses the wire), consistent with every invariant the service keeps, so a
 * service started on the database serves them as if they had onboarded
 * through it:
 *
 * - identity (issuer, `seed-<g>`) for g = 1…N; the user id is derived from
 *   (issuer, g), so every table is one set-based INSERT without a join;
 * - profile: name `Fan <g>`, handle `seed_<g>` (held in handle_claims, set
 *   once in handle_history); a favorite team for 24 of 25
 *   users (22 teams, `Team 1`…`Team 22`); a rival team for one in three; all
 *   eight fields for one in 21 (those with a team);
 * - quest states, ledger rows (one per completed quest, `balanceAfter` the
 *   running sum) and the all-time leaderboard entry (points = balance):
 *   welcome 100 + handle 25 + team 25 + rival 25 + complete profile 100, so
 *   scores take five values and tie groups are huge, as quests make them;
 * - with `scoreSpread` K, scores spread as points from activity spread them:
 *   each user's balance is u(g), uniform in [0, K) (a multiplicative hash of
 *   g, so distinct users mostly get distinct scores while K ≥ N), reached by
 *   one more ledger row after the quests' (reason `adjustment`, delta u(g) −
 *   the quests' points, left out when 0): the balance is still the ledger's
 *   sum and the newest row's `balanceAfter`;
 * - reached_seq in onboarding order (g), taken from the sequence so later
 *   writes come after; team_key = lower(favorite team); rank_counts rebuilt.
 *
 * The seeded history is dated 2025-12-01 onwards (1 ms apart): its season
 * boards (2025-W49…, month 2025-12…) are not filled, so the current seasons
 * start empty, as they would for users who earned nothing this season.
 *
 * Speed (10M users): everything runs on one connection, the inserts in one
 * transaction. When the seeded tables are empty, their primary keys, unique
 * constraints, other indexes and foreign keys (also those of other tables
 * pointing at them) are dropped first and re-created afterwards from their
 * own catalog definitions (pg_get_indexdef, pg_get_constraintdef), which
 * validates every row: one sort per index instead of an index insert and a
 * key check per row. A failure rolls all of it back. The session raises
 * maintenance_work_mem and work_mem and turns off synchronous_commit, and
 * resets them afterwards. No trigger fires on INSERT into these tables (the
 * ledger's append-only trigger is on UPDATE/DELETE).
 */
export interface SeedTimings {
  [table: string]: number;
}

const BASE = '2025-12-01T00:00:00Z';

/** True when (issuer, seed-1) exists already. */
export async function isSeeded(db: Kysely<Database>, issuer: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('issuer', '=', issuer)
    .where('subject', '=', 'seed-1')
    .executeTakeFirst();
  return row !== undefined;
}

export async function seedUsers(
  db: Kysely<Database>,
  options: {
    users: number;
    issuer: string;
    /**
     * Only users, all-time entries and rank counts: the tables a rank reads.
     * For timing ranks alone, at a tenth of the full seed's rows; the
     * service must not be pointed at it (no profiles, quests or ledger).
     */
    entriesOnly?: boolean;
    /** Scores uniform in [0, scoreSpread) instead of the quests' five values. */
    scoreSpread?: number | undefined;
    log?: (line: string) => void;
  },
): Promise<SeedTimings> {
  return db.connection().execute(async (session) => {
    for (const [name, value] of Object.entries(SESSION)) {
      await sql`SELECT set_config(${name}, ${value}, false)`.execute(session);
    }
    try {
      return await seedOnSession(session, options);
    } finally {
      for (const name of Object.keys(SESSION)) await sql`RESET ${sql.raw(name)}`.execute(session);
    }
  });
}

/** Settings of the seeding session (reset afterwards: the connection goes back to the pool). */
const SESSION = {
  maintenance_work_mem: '1GB',
  max_parallel_maintenance_workers: '1',
  work_mem: '256MB',
  synchronous_commit: 'off',
};

/** The tables the seed writes (rank_counts is rebuilt by rebuildRankCounts). */
const SEEDED = [
  'users',
  'profiles',
  'handle_claims',
  'handle_history',
  'user_quests',
  'points_ledger',
  'leaderboard_entries',
];

/** An index, a primary key / unique / exclusion constraint or a foreign key, as the catalog defines it. */
interface Key {
  relation: string;
  name: string;
  kind: 'index' | 'constraint' | 'foreign key';
  definition: string;
}

/**
 * The keys of the seeded tables and the foreign keys pointing at them, in
 * the order they are re-created: indexes, then constraints, then foreign keys.
 */
async function keysOf(db: Kysely<Database>, seeded: string[]): Promise<Key[]> {
  const tables = sql`ARRAY[${sql.join(seeded.map((table) => sql`${table}::regclass::oid`))}]`;
  const { rows } = await sql<Key>`
    SELECT * FROM (
    SELECT c.conrelid::regclass::text AS relation, c.conname::text AS name,
           CASE c.contype WHEN 'f' THEN 'foreign key' ELSE 'constraint' END AS kind,
           pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c
    WHERE c.contype IN ('p', 'u', 'x', 'f')
      AND (c.conrelid = ANY (${tables}) OR (c.contype = 'f' AND c.confrelid = ANY (${tables})))
    UNION ALL
    SELECT i.indrelid::regclass::text, i.indexrelid::regclass::text, 'index',
           pg_get_indexdef(i.indexrelid)
    FROM pg_index i
    WHERE i.indrelid = ANY (${tables})
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                      WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid
                        AND c.contype IN ('p', 'u', 'x'))
    ) AS k
    ORDER BY CASE k.kind WHEN 'index' THEN 0 WHEN 'constraint' THEN 1 ELSE 2 END, k.relation, k.name`.execute(
    db,
  );
  return rows;
}

async function seedOnSession(
  session: Kysely<Database>,
  options: Parameters<typeof seedUsers>[1],
): Promise<SeedTimings> {
  const { users: n, issuer, entriesOnly = false, scoreSpread } = options;
  if (scoreSpread !== undefined && !(Number.isSafeInteger(scoreSpread) && scoreSpread >= 1)) {
    throw new Error('scoreSpread must be a positive integer');
  }
  if (scoreSpread !== undefined && scoreSpread > 2 ** 31 - 1) {
    throw new Error('scoreSpread must be below 2^31: points are an int4');
  }
  const timings: SeedTimings = {};
  const timed = async (name: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    timings[name] = (performance.now() - started) / 1000;
    options.log?.(`- ${name}: ${timings[name]!.toFixed(1)} s`);
  };
  const empty = await sql<{ empty: boolean }>`SELECT ${sql.join(
    SEEDED.map((table) => sql`NOT EXISTS (SELECT 1 FROM ${sql.table(table)})`),
    sql` AND `,
  )} AS empty`.execute(session);
  await session.transaction().execute(async (db) => {
    const step = (name: string, statement: ReturnType<typeof sql>) =>
      timed(name, () => statement.execute(db));
    // Only on empty tables (a first seed); otherwise the keys stay and check each row.
    const keys = empty.rows[0]?.empty ? await keysOf(db, SEEDED) : [];
    await dropKeys(db, keys, timed);
    await insertRows(step, { n, issuer, entriesOnly, scoreSpread });
    await createKeys(db, keys, SEEDED, timed);
  });
  // The same for the counts on a first seed: at 10M spread scores the rebuild
  // writes ~65M count rows, one key insert each otherwise (docs/SCALING.md).
  // rebuildRankCounts is its own transaction; a failure leaves the table as it
  // was, and the key is put back.
  const countKeys = empty.rows[0]?.empty ? await keysOf(session, ['rank_counts']) : [];
  await dropKeys(session, countKeys, timed);
  try {
    await timed('rank counts', () => rebuildRankCounts(session));
  } finally {
    await createKeys(session, countKeys, ['rank_counts'], timed);
  }
  // VACUUM sets the visibility map (as autovacuum would on tables this static),
  // so index-only scans need no heap visits, and ANALYZE gives the planner sizes.
  await timed('vacuum analyze', () => sql`VACUUM ANALYZE`.execute(session));
  return timings;
}

type Step = (name: string, statement: ReturnType<typeof sql>) => Promise<void>;
type Timed = (name: string, work: () => Promise<unknown>) => Promise<void>;

/** Drops `keys` (keysOf), dependents first. */
async function dropKeys(db: Kysely<Database>, keys: Key[], timed: Timed): Promise<void> {
  if (keys.length === 0) return;
  await timed(`drop ${keys.length} keys and indexes`, async () => {
    for (const key of [...keys].reverse()) {
      await (
        key.kind === 'index'
          ? sql`DROP INDEX ${sql.raw(key.name)}`
          : sql`ALTER TABLE ${sql.raw(key.relation)} DROP CONSTRAINT ${sql.id(key.name)}`
      ).execute(db);
    }
  });
}

/** Re-creates `keys` from their definitions and checks the catalog now holds exactly them. */
async function createKeys(
  db: Kysely<Database>,
  keys: Key[],
  seeded: string[],
  timed: Timed,
): Promise<void> {
  for (const key of keys) {
    await timed(`${key.kind} ${key.name}`, () =>
      (key.kind === 'index'
        ? sql.raw(key.definition)
        : sql`ALTER TABLE ${sql.raw(key.relation)} ADD CONSTRAINT ${sql.id(key.name)} ${sql.raw(key.definition)}`
      ).execute(db),
    );
  }
  if (keys.length > 0 && JSON.stringify(await keysOf(db, seeded)) !== JSON.stringify(keys)) {
    throw new Error('the re-created keys differ from the dropped ones');
  }
}

/** The rows: one set-based INSERT per table. */
async function insertRows(
  step: Step,
  options: { n: number; issuer: string; entriesOnly: boolean; scoreSpread: number | undefined },
) {
  const { n, issuer, entriesOnly, scoreSpread } = options;
  // Per g: the user id, and the flags every table derives its rows from.
  // An RFC 4122 version-4 layout (version nibble 4, variant 8): the API's uuid schema checks it.
  const id = sql`overlay(overlay(md5(${issuer} || '/' || g) placing '4' from 13) placing '8' from 17)::uuid`;
  const team = sql`(g % 25 <> 0)`;
  const rival = sql`(g % 3 = 0)`;
  const full = sql`(g % 21 = 0 AND g % 25 <> 0)`;
  const at = sql`(${BASE}::timestamptz + g * interval '1 millisecond')`;
  const series = sql`generate_series(1, ${n}::integer) AS g`;

  await step(
    'users',
    sql`INSERT INTO users (id, issuer, subject, onboarded_at, created_at, updated_at)
        SELECT ${id}, ${issuer}, 'seed-' || g, ${at}, ${at}, ${at} FROM ${series}`,
  );
  const quested = sql`(100 + 25 + 25 * ${team}::integer + 25 * ${rival}::integer + 100 * ${full}::integer)`;
  // u(g): g times 2^32 / φ modulo 2^32 (a permutation of 32-bit numbers), scaled to [0, K).
  const balance =
    scoreSpread === undefined
      ? quested
      : sql`((g::bigint * 2654435769 % 4294967296) * ${scoreSpread}::bigint / 4294967296)::integer`;
  if (!entriesOnly) await seedAccounts();
  async function seedAccounts() {
    await step(
      'profiles',
      sql`INSERT INTO profiles (user_id, name, handle, location, favorite_sport, favorite_team,
                              favorite_player, rival_team, profile_url, created_at, updated_at)
        SELECT ${id}, 'Fan ' || g, 'seed_' || g,
               CASE WHEN ${full} THEN 'City ' || (g % 50) END,
               CASE WHEN ${full} THEN 'Football' END,
               CASE WHEN ${team} THEN 'Team ' || (1 + (g * 7) % 22) END,
               CASE WHEN ${full} THEN 'Player ' || (g % 100) END,
               CASE WHEN ${rival} THEN 'Rival ' || (g % 10) END,
               CASE WHEN ${full} THEN 'https://fans.example/' || g END,
               ${at}, ${at}
        FROM ${series}`,
    );
    // Every handle is held (handle_claims) and was set once (handle_history 'first').
    await step(
      'handle claims',
      sql`INSERT INTO handle_claims (handle_key, user_id, updated_at)
        SELECT lower('seed_' || g), ${id}, ${at} FROM ${series}`,
    );
    await step(
      'handle history',
      sql`INSERT INTO handle_history (user_id, old_handle, new_handle, kind, changed_at)
        SELECT ${id}, NULL, 'seed_' || g, 'first', ${at} FROM ${series} ORDER BY g`,
    );
    // Quest order and points as src/domain/quests.ts defines them.
    const quests = sql`(VALUES
      (1, 'welcome', 100, 1), (2, 'claim_handle', 25, 1), (3, 'pick_team', 25, 1),
      (4, 'name_rival', 25, 1), (5, 'complete_profile', 100, 8)) AS q(ord, quest_id, points, target)`;
    // id and time once per user, not once per quest row: OFFSET 0 keeps the
    // planner from pulling the subquery up (md5 is most of a row's cost:
    // selecting 5M quest rows took 15.6 s with it per row, 4.4 s per user).
    const perUser = sql`(SELECT g, ${id} AS id, ${at} AS at FROM ${series} OFFSET 0) AS s`;
    const progress = sql`CASE q.quest_id
      WHEN 'welcome' THEN 1 WHEN 'claim_handle' THEN 1
      WHEN 'pick_team' THEN ${team}::integer WHEN 'name_rival' THEN ${rival}::integer
      ELSE 2 + ${team}::integer + ${rival}::integer + 4 * ${full}::integer END`;
    await step(
      'user quests',
      sql`INSERT INTO user_quests (user_id, quest_id, progress, target, tiers_reached, status,
                                completed_at, updated_at)
        SELECT s.id, q.quest_id, ${progress}, q.target,
               CASE WHEN ${progress} >= q.target THEN 1 ELSE 0 END,
               CASE WHEN ${progress} >= q.target THEN 'completed' ELSE 'in_progress' END,
               CASE WHEN ${progress} >= q.target THEN s.at END, s.at
        FROM ${perUser} CROSS JOIN ${quests}`,
    );
    await step(
      'points ledger',
      sql`INSERT INTO points_ledger
          (user_id, delta, reason, quest_id, idempotency_key, balance_after, created_at)
        SELECT s.id, q.points, 'quest_completed', q.quest_id, 'quest:' || q.quest_id,
               sum(q.points) OVER (PARTITION BY g ORDER BY q.ord), s.at
        FROM ${perUser} CROSS JOIN ${quests}
        WHERE ${progress} >= q.target
        ORDER BY g, q.ord`,
    );
    if (scoreSpread !== undefined) {
      // After the quests' rows (a larger id): the newest row carries the balance.
      await step(
        'points ledger (adjustments to the spread scores)',
        sql`INSERT INTO points_ledger (user_id, delta, reason, quest_id, idempotency_key,
                                       balance_after, created_at, source, source_detail)
          SELECT s.id, s.balance - s.quested, 'adjustment', NULL, 'seed:spread', s.balance, s.at,
                 'adjustment', '{"by":"bench:seed","note":"a spread score"}'::jsonb
          FROM (SELECT g, ${id} AS id, ${at} AS at, ${balance} AS balance, ${quested} AS quested
                FROM ${series} OFFSET 0) AS s
          WHERE s.balance <> s.quested
          ORDER BY s.g`,
      );
    }
  }
  await step(
    'leaderboard entries',
    sql`INSERT INTO leaderboard_entries
          (board, user_id, points, reached_seq, reached_at, updated_at, team_key)
        SELECT 'all', ${id}, ${balance}, s.base + g, ${at}, ${at},
               CASE WHEN ${team} THEN lower('Team ' || (1 + (g * 7) % 22)) END
        FROM ${series}, (SELECT nextval('leaderboard_reached_seq') AS base) AS s`,
  );
  await step(
    'sequence',
    sql`SELECT setval('leaderboard_reached_seq',
                      (SELECT max(reached_seq) FROM leaderboard_entries))`,
  );
}
