/**
 * `npm run bench:events -- [--fans N] [--senders S] [--batch B] [--duration s] [--warmup s]
 *   [--rounds R] [--types a,b,c] [--score-spread K] [--database-url URL] [--issuer ISS] [--floor]
 *   [--smoke] [--burst N]`
 *
 * Throughput of points from activity (issue 28, item 7): S concurrent
 * senders (10) post batches of B events (100) to `POST /api/events` with one
 * service token holding `events:write`, against a board of N onboarded fans
 * (1,000,000) seeded as `npm run bench:seed` seeds them (bench/seed-data.ts):
 * each event names a fan `seed-<g>` picked uniformly, a type from `--types`
 * (the default catalog's three) and a fresh id. Two servers take the same
 * load in the same run, in rounds that rotate which goes first:
 *
 * - the **service**: the built `dist/src/server.js` as `npm start` runs it
 *   (NODE_ENV=production, 128 MB heap, pool of 10), the per-service rate
 *   limit on but never reached;
 * - the **baseline** (bench/events-baseline.ts): the least correct work —
 *   `node:http`, the same token verification, per event an insert into a
 *   ledger with a unique idempotency key and the fan's balance moved, one
 *   statement (its transaction) per batch, through `pg`, in tables of its
 *   own (schema `bench_events`, filled with the same N fans);
 * - with `--floor`, the **floor** (the baseline with BASELINE_EFFECTS=1):
 *   the baseline plus the rows item 5 asks an award to move in its own
 *   transaction (three board entries, their count cells, two outbox rows),
 *   written set-based in the same one statement per batch with none of
 *   their logic: what no implementation of item 5 can do with less, so
 *   floor / baseline bounds the ratio any such implementation reaches
 *   (schema `bench_events_floor`, the fans' all-time entries and counts).
 *
 * Per server: events/s (events answered in 200s over the round's time),
 * batch p50/p99, errors (a batch that failed counts all its events; an
 * event answered other than `recorded` counts one, except CAP_REACHED, which
 * is a correct answer and reported apart), server CPU ms per event and
 * PostgreSQL CPU ms per event (/proc: robust to a busy machine), peak RSS;
 * medians over the rounds, the ratio service / baseline and whether the
 * targets hold (≥ 0.5 × the baseline, 0 errors). The report is printed and
 * written to bench/results/events-<time>/.
 *
 * Scores are spread over [0, K) when seeding (`--score-spread`, default N:
 * about as many distinct scores as fans, as activity makes them). With
 * `--database-url` the database at URL is created if missing, migrated,
 * seeded if it is not yet (for ISS; a database `npm run bench:seed --
 * --database-url URL --no-measure` seeded serves as it is, N then being its
 * fan count) and kept: the events a run records stay in it. Without it, a
 * new database is created on BENCH_ADMIN_URL and dropped afterwards
 * (BENCH_KEEP_DB=1 keeps it). `--smoke`: 2,000 fans, 1 round of 2 s, to
 * check the harness, not to measure. `--burst N` (bench/events-burst.ts):
 * instead of the rounds, N events for N distinct fans sent as fast as the
 * senders can, to the service alone; the time until the last is recorded
 * and until the last `rank_changed` reached the outbox (N fans by default).
 * The parts: bench/events-settings.ts (arguments), events-tables.ts (the
 * baseline's and floor's tables), events-load.ts (servers and senders),
 * events-report.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { startIssuer, type BenchIssuer } from './issuer.js';
import { isSeeded, seedUsers } from './seed-data.js';
import { burst } from './events-burst.js';
import { load, startServer, stop } from './events-load.js';
import { report } from './events-report.js';
import {
  args,
  BASELINE_SCHEMA,
  CLIENT_ID,
  FLOOR_SCHEMA,
  log,
  outDir,
  ROOT,
  settings,
  stamp,
  type Running,
  type Sample,
} from './events-settings.js';
import { adminDb, baselineTables, checkFloor, dropBaseline } from './events-tables.js';

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  log('building the service');
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('build failed');

  const { url: databaseUrl, drop } = await target();
  const servers: Running[] = [];
  let issuer: BenchIssuer | undefined;
  try {
    const fans = await prepare(databaseUrl);
    issuer = await startIssuer({ issuer: settings.issuer });
    const service = await startServer(
      'service',
      ['--max-old-space-size=128', path.join(ROOT, 'dist/src/server.js')],
      issuer,
      databaseUrl,
    );
    servers.push(service);
    const token = issuer.signService(CLIENT_ID, ['events:write'], 6 * 3600);
    if (settings.burst !== undefined) {
      await burst(service, token, fans, databaseUrl);
      return;
    }
    const baseline = await startServer(
      'baseline',
      ['--import', 'tsx', 'bench/events-baseline.ts'],
      issuer,
      databaseUrl,
    );
    servers.push(baseline);
    if (settings.floor) {
      servers.push(
        await startServer(
          'floor',
          ['--import', 'tsx', 'bench/events-baseline.ts'],
          issuer,
          databaseUrl,
        ),
      );
    }

    for (const server of servers) await load(server, token, fans, 'warm', settings.warmup);
    const samples: Sample[] = [];
    for (let round = 1; round <= settings.rounds; round += 1) {
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      for (const server of order) {
        const sample = { ...(await load(server, token, fans, round, settings.duration)), round };
        samples.push(sample);
        log(
          `${server.side} round ${round}: ${sample.eventsPerSecond.toFixed(0)} events/s, ` +
            `batch p50 ${sample.p50Ms.toFixed(1)} ms p99 ${sample.p99Ms.toFixed(1)} ms, ` +
            `errors ${sample.errors}, capped ${sample.capped}, ` +
            `${sample.cpuMsPerEvent.toFixed(3)} ms CPU/event ` +
            `(+ ${sample.dbCpuMsPerEvent.toFixed(3)} ms in PostgreSQL)`,
        );
        if (sample.firstError) log(`  first error: ${sample.firstError}`);
      }
    }
    if (settings.floor) await checkFloor(databaseUrl);
    await report(samples, fans, databaseUrl);
  } finally {
    for (const server of servers.reverse()) await stop(server);
    await issuer?.close();
    await dropBaseline(databaseUrl).catch(() => undefined);
    await drop?.();
  }
}

/** The database to run on (created if missing), and how to drop it afterwards when it is the run's own. */
async function target(): Promise<{ url: string; drop: (() => Promise<void>) | undefined }> {
  const given = args['database-url'];
  const url = new URL(given ?? settings.adminUrl);
  if (!given) url.pathname = `/bench_events_${stamp.replace(/-/g, '_').toLowerCase()}`;
  const name = decodeURIComponent(url.pathname.slice(1));
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = adminDb(adminUrl.href);
  try {
    const exists = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`.execute(admin);
    if (exists.rows.length === 0) await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
  } finally {
    await admin.destroy();
  }
  log(`database ${name}`);
  if (given || settings.keepDb) return { url: url.href, drop: undefined };
  return {
    url: url.href,
    drop: async () => {
      const again = adminDb(adminUrl.href);
      await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(again);
      await again.destroy();
    },
  };
}

/**
 * Migrates, seeds the fans unless the database holds them already, and gives
 * the baseline its tables with the same fans. Returns the number of fans.
 */
async function prepare(url: string): Promise<number> {
  const database = await createDatabase({
    databaseUrl: url,
    dataDir: '/nonexistent',
    poolMax: 2,
    statementTimeoutMs: 6 * 3600_000,
  });
  const { db } = database;
  try {
    await migrateToLatest(db);
    if (await isSeeded(db, settings.issuer)) {
      log(`already seeded for ${settings.issuer}`);
    } else {
      log(
        `seeding ${settings.fans.toLocaleString('en')} fans, scores in ` +
          `[0, ${settings.scoreSpread!.toLocaleString('en')})`,
      );
      await seedUsers(db, {
        users: settings.fans,
        issuer: settings.issuer,
        scoreSpread: settings.scoreSpread,
        log: (line) => log(`  seed ${line}`),
      });
    }
    // The seeded fans are seed-1 … seed-N (bench/seed-data.ts).
    const fans = Number(
      (
        await sql<{ n: string }>`SELECT count(*)::text AS n FROM users
          WHERE issuer = ${settings.issuer} AND subject LIKE 'seed-%'
            AND onboarded_at IS NOT NULL`.execute(db)
      ).rows[0]!.n,
    );
    const last = await sql`SELECT 1 FROM users WHERE issuer = ${settings.issuer}
      AND subject = ${`seed-${fans}`}`.execute(db);
    if (fans === 0 || last.rows.length === 0) {
      throw new Error(`the database's fans of ${settings.issuer} are not seed-1 … seed-${fans}`);
    }
    if (settings.burst !== undefined && settings.burst > fans) {
      throw new Error(`--burst ${settings.burst} needs as many fans; the database has ${fans}`);
    }
    if (settings.burst === undefined) await baselineTables(db, BASELINE_SCHEMA, fans, false);
    if (settings.floor && settings.burst === undefined)
      await baselineTables(db, FLOOR_SCHEMA, fans, true);
    return fans;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:events failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
