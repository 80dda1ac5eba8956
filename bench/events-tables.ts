/** The baseline's and the floor's tables of `npm run bench:events` (bench/events.ts, bench/events-baseline.ts). */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../db/schema.js';
import { BASELINE_SCHEMA, FLOOR_SCHEMA, log, settings } from './events-settings.js';

export function adminDb(url: string): Kysely<unknown> {
  return new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
}

/**
 * The baseline's tables in `name`, filled with the seeded fans (a balance and
 * a ledger row each, so the indexes have the board's size); with `effects`,
 * the floor's too: the fans' all-time entries, their count cells (4 shards),
 * an empty outbox.
 */
export async function baselineTables(
  db: Kysely<Database>,
  name: string,
  fans: number,
  effects: boolean,
): Promise<void> {
  log(`${effects ? 'floor' : 'baseline'} tables (${name}) for ${fans.toLocaleString('en')} fans`);
  const schema = sql.id(name);
  await sql`DROP SCHEMA IF EXISTS ${schema} CASCADE`.execute(db);
  await sql`CREATE SCHEMA ${schema}`.execute(db);
  await sql`CREATE TABLE ${schema}.balances (
    subject text PRIMARY KEY, balance bigint NOT NULL)`.execute(db);
  await sql`CREATE TABLE ${schema}.ledger (
    client_id text NOT NULL, event_id text NOT NULL, subject text NOT NULL,
    points integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (client_id, event_id))`.execute(db);
  await sql`INSERT INTO ${schema}.balances (subject, balance)
    SELECT u.subject, e.points FROM users u
    JOIN leaderboard_entries e ON e.user_id = u.id AND e.board = 'all'
    WHERE u.issuer = ${settings.issuer} AND u.subject LIKE 'seed-%'`.execute(db);
  await sql`INSERT INTO ${schema}.ledger (client_id, event_id, subject, points)
    SELECT 'bench:seed', subject, subject, balance FROM ${schema}.balances`.execute(db);
  if (effects) {
    await sql`CREATE TABLE ${schema}.entries (
      board text NOT NULL, subject text NOT NULL, points bigint NOT NULL,
      PRIMARY KEY (board, subject))`.execute(db);
    await sql`CREATE TABLE ${schema}.counts (
      board text NOT NULL, score bigint NOT NULL, shard integer NOT NULL, n bigint NOT NULL,
      PRIMARY KEY (board, score, shard))`.execute(db);
    await sql`CREATE TABLE ${schema}.outbox (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, subject text NOT NULL,
      type text NOT NULL, payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`.execute(db);
    await sql`INSERT INTO ${schema}.entries (board, subject, points)
      SELECT 'all', subject, balance FROM ${schema}.balances`.execute(db);
    await sql`INSERT INTO ${schema}.counts (board, score, shard, n)
      SELECT 'all', balance, abs(hashtext(subject)) % 4, count(*)
      FROM ${schema}.balances GROUP BY 2, 3`.execute(db);
  }
  for (const table of effects
    ? ['balances', 'ledger', 'entries', 'counts']
    : ['balances', 'ledger']) {
    await sql`ANALYZE ${schema}.${sql.id(table)}`.execute(db);
  }
}

/**
 * The floor did the work it stands for: every balance the sum of its
 * ledger, every all-time entry its balance, every board's count cells its
 * entries' scores, one `points_awarded` row per event recorded. Throws if not.
 */
export async function checkFloor(url: string): Promise<void> {
  const db = adminDb(url);
  const schema = sql.id(FLOOR_SCHEMA);
  try {
    const { rows } = await sql<{ problem: string; n: string }>`
      SELECT 'balance is not the ledger sum' AS problem, count(*)::text AS n
        FROM ${schema}.balances b
        JOIN (SELECT subject, sum(points) AS s FROM ${schema}.ledger GROUP BY subject) l
          USING (subject)
        WHERE l.s <> b.balance
      UNION ALL
      SELECT 'all-time entry is not the balance', count(*)::text
        FROM ${schema}.balances b LEFT JOIN ${schema}.entries e
          ON e.board = 'all' AND e.subject = b.subject
        WHERE e.points IS DISTINCT FROM b.balance
      UNION ALL
      SELECT 'count cell is not its entries', count(*)::text FROM (
        SELECT board, score, shard, sum(n) AS n FROM ${schema}.counts
          GROUP BY 1, 2, 3 HAVING sum(n) <> 0
        ) c FULL JOIN (
        SELECT board, points AS score, abs(hashtext(subject)) % 4 AS shard, count(*) AS n
          FROM ${schema}.entries GROUP BY 1, 2, 3
        ) e USING (board, score, shard)
        WHERE c.n IS DISTINCT FROM e.n
      UNION ALL
      SELECT 'events without their points_awarded row', abs(
        (SELECT count(*) FROM ${schema}.ledger WHERE client_id <> 'bench:seed') -
        (SELECT count(*) FROM ${schema}.outbox WHERE type = 'points_awarded'))::text`.execute(db);
    const problems = rows.filter((row) => row.n !== '0');
    if (problems.length > 0) {
      throw new Error(
        `the floor's tables are inconsistent: ${problems.map((p) => `${p.problem} (${p.n})`).join(', ')}`,
      );
    }
    log('floor checked: balances, all-time entries, count cells and outbox consistent');
  } finally {
    await db.destroy();
  }
}

export async function dropBaseline(url: string): Promise<void> {
  const db = adminDb(url);
  try {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(BASELINE_SCHEMA)} CASCADE`.execute(db);
    await sql`DROP SCHEMA IF EXISTS ${sql.id(FLOOR_SCHEMA)} CASCADE`.execute(db);
  } finally {
    await db.destroy();
  }
}
