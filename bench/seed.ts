/**
 * `npm run bench:seed`: how cost grows with the number of users. Creates a
 * database, migrates it, seeds BENCH_SEED_USERS (default 1,000,000) users with
 * profiles and leaderboard entries (generate_series, in the database), then
 * measures on that data:
 *
 * - the rank query (findRankedEntry) for a user near the top, in the middle and
 *   at the bottom: EXPLAIN (ANALYZE, BUFFERS) and wall time;
 * - the onboarding transaction (the service function `onboard`, as the
 *   procedure runs it) for fresh users: wall time per call, and EXPLAIN ANALYZE
 *   of each of its statements (run in a transaction that is rolled back).
 *
 * Prints a report and writes it to bench/results/seed-<time>.md.
 * Env: BENCH_SEED_USERS, BENCH_ADMIN_URL, BENCH_KEEP_DB=1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CamelCasePlugin, CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { findRankedEntry } from '../db/queries/leaderboard.js';
import { ensureUser } from '../db/queries/users.js';
import { onboard } from '../src/services/profile.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const users = Number(process.env.BENCH_SEED_USERS ?? 1_000_000);
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dbName = `bench_seed_${stamp.replace(/-/g, '_').toLowerCase()}`;
const ISSUER = 'https://seed.bench.invalid';
/** The default handle settings (HANDLE_CHANGE_COOLDOWN_DAYS, HANDLE_RESERVE_DAYS). */
const CONFIG = { handles: { cooldownDays: 30, reserveDays: 14 } };
const out: string[] = [];

function say(line = ''): void {
  out.push(line);
  process.stdout.write(`${line}\n`);
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  say(`- ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

async function main(): Promise<void> {
  const admin = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminUrl, max: 1 }) }),
  });
  await sql`create database ${sql.id(dbName)}`.execute(admin);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const captured: CompiledQuery[] = [];
  let capture = false;
  const database = await createDatabase({
    databaseUrl: url.href,
    dataDir: '/nonexistent',
    poolMax: 4,
    statementTimeoutMs: 600_000,
  });
  // A second handle on the same database that records every statement it runs.
  const recording = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.href, max: 2 }) }),
    plugins: [new CamelCasePlugin()],
    log: (event) => {
      if (capture && event.level === 'query') captured.push(event.query);
    },
  });
  const { db } = database;
  try {
    say(`# ${users.toLocaleString('en')} users — ${new Date().toISOString()}`);
    say();
    await migrateToLatest(db);
    const raw = db.withoutPlugins() as unknown as Kysely<unknown>;
    say('Seeding:');
    await timed('users', () =>
      sql`INSERT INTO users (issuer, subject, onboarded_at)
          SELECT ${ISSUER}, 'seed-' || g, now() - (g || ' seconds')::interval
          FROM generate_series(1, ${users}) AS g`.execute(raw),
    );
    await timed('profiles', () =>
      sql`INSERT INTO profiles (user_id, name, handle, favorite_team)
          SELECT id, 'Fan ' || subject, 'h' || replace(subject, '-', '_'),
                 (ARRAY['Arsenal', 'Everton', 'Leeds', 'Celtic'])[1 + abs(hashtext(subject)) % 4]
          FROM users`.execute(raw),
    );
    // Points in quest-sized steps (0..325), so ties are common, as in real use.
    await timed('leaderboard entries', () =>
      sql`INSERT INTO leaderboard_entries (user_id, points, reached_at, updated_at)
          SELECT id, 25 * (abs(hashtext(id::text)) % 14), onboarded_at, onboarded_at
          FROM users`.execute(raw),
    );
    // VACUUM sets the visibility map, as autovacuum would on a table this static,
    // so the planner may use index-only scans.
    await timed('vacuum analyze', () => sql`VACUUM ANALYZE`.execute(raw));
    const size = await sql<{ size: string }>`
      SELECT pg_size_pretty(pg_database_size(current_database())) AS size`.execute(raw);
    say(`- database size: ${size.rows[0]?.size}`);
    say();

    // Rank: a user near the top, one in the middle, one at the bottom.
    const ordered = (offset: number) =>
      sql<{ userId: string }>`
        SELECT user_id AS "userId" FROM leaderboard_entries
        ORDER BY points DESC, reached_at, user_id OFFSET ${offset} LIMIT 1`.execute(raw);
    say('## Rank query (findRankedEntry)');
    for (const [label, offset] of [
      ['top (rank 10)', 9],
      ['middle', Math.floor(users / 2)],
      ['bottom', users - 1],
    ] as const) {
      const userId = (await ordered(offset)).rows[0]!.userId;
      const started = performance.now();
      const entry = await findRankedEntry(db, userId);
      const ms = performance.now() - started;
      say();
      say(`### ${label}: rank ${entry?.rank.toLocaleString('en')}, ${ms.toFixed(1)} ms wall`);
      capture = true;
      captured.length = 0;
      await findRankedEntry(recording as never, userId);
      capture = false;
      await explain(recording, captured, false);
    }

    say();
    say('## Onboarding a new user (the whole transaction, as the procedure runs it)');
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const user = await ensureUser(db, ISSUER, `fresh-${i}`);
      const started = performance.now();
      await onboard({ db, config: CONFIG }, user.id, {
        name: 'New Fan',
        handle: `fresh_${i}`,
        favoriteTeam: 'Leeds',
      });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    say(
      `- 50 sequential first-time onboardings: median ${times[25]!.toFixed(1)} ms, ` +
        `max ${times[49]!.toFixed(1)} ms`,
    );
    const probe = await ensureUser(db, ISSUER, 'fresh-explain');
    capture = true;
    captured.length = 0;
    await onboard({ db: recording as never, config: CONFIG }, probe.id, {
      name: 'Explained',
      handle: 'fresh_explain',
      favoriteTeam: 'Leeds',
    }).catch(() => undefined);
    capture = false;
    // The same statements under EXPLAIN ANALYZE, for a second user in the
    // state the first was in (the ledger is append-only, so no reset).
    const twin = await ensureUser(db, ISSUER, 'fresh-explain-twin');
    const swap = (value: unknown) =>
      value === probe.id ? twin.id : value === 'fresh_explain' ? 'fresh_explain_twin' : value;
    captured.splice(
      0,
      captured.length,
      ...captured.map((q) => CompiledQuery.raw(q.sql, q.parameters.map(swap))),
    );
    await explain(recording, captured, true);
  } finally {
    await recording.destroy();
    await database.close();
    if (process.env.BENCH_KEEP_DB !== '1') {
      await sql`drop database if exists ${sql.id(dbName)}`.execute(admin);
    }
    await admin.destroy();
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `seed-${stamp}.md`), `${out.join('\n')}\n`);
  }
}

/** EXPLAIN (ANALYZE, BUFFERS) of each captured statement, in one transaction rolled back. */
async function explain(
  db: Kysely<unknown>,
  queries: CompiledQuery[],
  summary: boolean,
): Promise<void> {
  const statements = queries.filter((q) => !/^(begin|commit|rollback)/i.test(q.sql.trim()));
  await db.connection().execute(async (conn) => {
    await conn.executeQuery(CompiledQuery.raw('BEGIN'));
    try {
      for (const query of statements) {
        const result = await conn.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, [...query.parameters]),
        );
        const lines = result.rows.map((row) => row['QUERY PLAN']);
        if (summary) {
          const time = lines.find((l) => l.startsWith('Execution Time')) ?? '';
          say(`- \`${query.sql.replace(/\s+/g, ' ').slice(0, 110)}…\` — ${time}`);
        } else {
          say('```');
          for (const line of lines) say(line);
          say('```');
        }
      }
    } finally {
      await conn.executeQuery(CompiledQuery.raw('ROLLBACK'));
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`seed failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
