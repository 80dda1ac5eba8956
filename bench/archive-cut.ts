/**
 * `npx tsx bench/archive-cut.ts [--users N]`
 *
 * Times the cut of a closed season's final standings (db/queries/season-archives.ts
 * `cutSeasonArchive`, docs/SEASONS.md) on a season board of N entries: seeds N
 * users with their all-time entries (bench/seed-data.ts, entries only) into
 * a new database on BENCH_ADMIN_URL (default the local PostgreSQL), copies
 * the entries to two season boards, cuts each once, and drops the database.
 * N defaults to 100,000.
 */
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { cutSeasonArchive } from '../db/queries/season-archives.js';
import { SEASON_ARCHIVE_TIMEOUT_MS } from '../src/domain/seasons.js';
import { seedUsers } from './seed-data.js';

const { values: args } = parseArgs({ options: { users: { type: 'string' } } });
const users = Number(args.users ?? 100_000);
if (!Number.isSafeInteger(users) || users < 1)
  throw new Error('--users must be a positive integer');

async function admin(url: URL, statement: (db: Kysely<unknown>) => Promise<unknown>) {
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.href, max: 1 }) }),
  });
  try {
    await statement(db);
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  const adminUrl = new URL(
    process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  );
  const name = `bench_archive_${Date.now().toString(36)}`;
  await admin(adminUrl, (db) => sql`CREATE DATABASE ${sql.id(name)}`.execute(db));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await createDatabase({
    databaseUrl: url.href,
    dataDir: '/nonexistent',
    poolMax: 2,
    statementTimeoutMs: 3600_000,
  });
  const { db } = database;
  try {
    await migrateToLatest(db);
    await seedUsers(db, { users, issuer: 'https://archive.bench.invalid', entriesOnly: true });
    for (const board of ['week:2025-W49', 'week:2025-W50']) {
      await sql`
        INSERT INTO leaderboard_entries
          (board, user_id, points, reached_seq, reached_at, updated_at, team_key)
        SELECT ${board}, user_id, points, reached_seq, reached_at, updated_at, team_key
        FROM leaderboard_entries WHERE board = 'all'`.execute(db);
    }
    await sql`ANALYZE leaderboard_entries`.execute(db);
    for (const board of ['week:2025-W49', 'week:2025-W50']) {
      const started = performance.now();
      await cutSeasonArchive(db, board, new Date('2025-12-15T00:00:00Z'), {
        timeoutMs: SEASON_ARCHIVE_TIMEOUT_MS,
      });
      const elapsed = performance.now() - started;
      process.stdout.write(
        `cut of ${board}, ${users.toLocaleString('en')} entries: ${elapsed.toFixed(0)} ms\n`,
      );
    }
  } finally {
    await database.close();
    await admin(adminUrl, (db) =>
      sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(db),
    );
  }
}

await main();
