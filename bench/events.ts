/**
 * `npm run bench:events -- [--fans N] [--senders S] [--batch B] [--duration s] [--warmup s]
 *   [--rounds R] [--types a,b,c] [--score-spread K] [--database-url URL] [--issuer ISS] [--floor]
 *   [--smoke]`
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
 * check the harness, not to measure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { benchServiceEnv, startIssuer, type BenchIssuer } from './issuer.js';
import { postgresCpuSince, readCpuMs, readPostgresCpuMs, readRssMb } from './proc.js';
import { isSeeded, seedUsers } from './seed-data.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    fans: { type: 'string' },
    senders: { type: 'string' },
    batch: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    types: { type: 'string' },
    'score-spread': { type: 'string' },
    'database-url': { type: 'string' },
    issuer: { type: 'string' },
    floor: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
  },
});
const smoke = args.smoke;
function positive(name: string, value: string | undefined, fallback: number): number {
  const n = Number(value ?? fallback);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}
const settings = {
  fans: positive('fans', args.fans ?? process.env.BENCH_EVENTS_FANS, smoke ? 2_000 : 1_000_000),
  senders: positive('senders', args.senders, 10),
  batch: positive('batch', args.batch, 100),
  duration: positive('duration', args.duration, smoke ? 2 : 20),
  warmup: positive('warmup', args.warmup, smoke ? 1 : 5),
  rounds: positive('rounds', args.rounds, smoke ? 1 : 3),
  types: (args.types ?? 'match_checkin,prediction_correct,article_read').split(','),
  scoreSpread: undefined as number | undefined,
  issuer: args.issuer ?? 'https://seed.bench.invalid',
  adminUrl: process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  keepDb: process.env.BENCH_KEEP_DB === '1',
  floor: args.floor,
};
settings.scoreSpread = positive('score-spread', args['score-spread'], settings.fans);
const BASELINE_SCHEMA = 'bench_events';
const FLOOR_SCHEMA = 'bench_events_floor';
const CLIENT_ID = 'bench-events-sender';
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const run = Date.now().toString(36);
const outDir = path.join(ROOT, 'bench', 'results', `events-${stamp}`);

type Side = 'service' | 'baseline' | 'floor';
interface Running {
  side: Side;
  url: string;
  child: ChildProcess;
  stderr: () => string;
}
interface Sample {
  side: Side;
  round: number;
  events: number;
  eventsPerSecond: number;
  batches: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  capped: number;
  cpuMsPerEvent: number;
  dbCpuMsPerEvent: number;
  rssPeakMb: number;
  firstError: string | undefined;
}

function log(message: string): void {
  process.stderr.write(`[bench:events] ${message}\n`);
}

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
    const token = issuer.signService(CLIENT_ID, ['events:write'], 6 * 3600);

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

function adminDb(url: string): Kysely<unknown> {
  return new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
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
    await baselineTables(db, BASELINE_SCHEMA, fans, false);
    if (settings.floor) await baselineTables(db, FLOOR_SCHEMA, fans, true);
    return fans;
  } finally {
    await database.close();
  }
}

/**
 * The baseline's tables in `name`, filled with the seeded fans (a balance and
 * a ledger row each, so the indexes have the board's size); with `effects`,
 * the floor's too: the fans' all-time entries, their count cells (4 shards),
 * an empty outbox.
 */
async function baselineTables(
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
async function checkFloor(url: string): Promise<void> {
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

async function dropBaseline(url: string): Promise<void> {
  const db = adminDb(url);
  try {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(BASELINE_SCHEMA)} CASCADE`.execute(db);
    await sql`DROP SCHEMA IF EXISTS ${sql.id(FLOOR_SCHEMA)} CASCADE`.execute(db);
  } finally {
    await db.destroy();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startServer(
  side: Side,
  argv: string[],
  issuer: BenchIssuer,
  databaseUrl: string,
): Promise<Running> {
  const port = await freePort();
  const extra: Record<string, string> =
    side === 'service'
      ? {
          ...benchServiceEnv(issuer, databaseUrl, port),
          RATE_LIMIT_PER_IP: '0',
          // On, so its cost is measured; never reached.
          RATE_LIMIT_PER_SERVICE: '1000000',
        }
      : {
          PORT: String(port),
          DATABASE_URL: databaseUrl,
          AUTH_ISSUER: issuer.issuer,
          AUTH_JWKS_URL: issuer.jwksUrl,
          BASELINE_SCHEMA: side === 'floor' ? FLOOR_SCHEMA : BASELINE_SCHEMA,
          BASELINE_EFFECTS: side === 'floor' ? '1' : '0',
        };
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...extra },
    // Logs are formatted and written as in production, then discarded.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${side} exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`${side} did not start: ${stderr}`);
    try {
      await fetch(`${url}/healthz`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { side, url, child, stderr: () => stderr };
}

async function stop(server: Running): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** One batch: fresh ids, fans picked uniformly, types in turn. */
function batchOf(prefix: string, fans: number): string {
  const events = Array.from({ length: settings.batch }, (_, i) => {
    const type = settings.types[Math.floor(Math.random() * settings.types.length)]!;
    return {
      id: `${prefix}-${i}`,
      subject: `seed-${1 + Math.floor(Math.random() * fans)}`,
      type,
      ...(type === 'article_read' && { value: 1 + Math.floor(Math.random() * 3) }),
    };
  });
  return JSON.stringify({ events });
}

/** `settings.senders` senders posting batches to `server` for `seconds`. */
async function load(
  server: Running,
  token: string,
  fans: number,
  label: string | number,
  seconds: number,
): Promise<Omit<Sample, 'round'>> {
  const cpuBefore = readCpuMs(server.child.pid!);
  const dbCpuBefore = readPostgresCpuMs();
  let rssPeak = readRssMb(server.child.pid!);
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, readRssMb(server.child.pid!));
  }, 100);
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  let capped = 0;
  let firstError: string | undefined;
  const fail = (count: number, why: string) => {
    errors += count;
    firstError ??= why;
  };
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: settings.senders }, async (_, sender) => {
      for (let n = 0; performance.now() < until; n += 1) {
        const body = batchOf(`${run}-${server.side}-${label}-${sender}-${n}`, fans);
        const sent = performance.now();
        try {
          const response = await fetch(`${server.url}/api/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body,
          });
          const text = await response.text();
          latencies.push(performance.now() - sent);
          if (response.status !== 200) {
            fail(settings.batch, `${response.status} ${text.slice(0, 300)}`);
            continue;
          }
          const results = (JSON.parse(text) as { data: { results: any[] } }).data.results;
          if (results.length !== settings.batch) {
            fail(settings.batch, `${results.length} results for ${settings.batch} events`);
            continue;
          }
          events += results.length;
          for (const result of results) {
            if (result.status === 'recorded') continue;
            if (result.error?.code === 'CAP_REACHED') capped += 1;
            else fail(1, JSON.stringify(result));
          }
        } catch (error) {
          fail(settings.batch, String(error));
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpuMs = readCpuMs(server.child.pid!) - cpuBefore;
  const dbCpuMs = postgresCpuSince(dbCpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length === 0
      ? NaN
      : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    side: server.side,
    events,
    eventsPerSecond: events / elapsed,
    batches: latencies.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
    capped,
    cpuMsPerEvent: cpuMs / Math.max(1, events),
    dbCpuMsPerEvent: dbCpuMs / Math.max(1, events),
    rssPeakMb: Math.max(rssPeak, readRssMb(server.child.pid!)),
    firstError,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The target of item 7: the service at least half the baseline's events/s, and no errors. */
const TARGET_RATIO = 0.5;

async function report(samples: Sample[], fans: number, databaseUrl: string): Promise<void> {
  const db = adminDb(databaseUrl);
  const version = (await sql<{ version: string }>`SELECT version()`.execute(db)).rows[0]!.version;
  const distinct = (
    await sql<{ n: string }>`SELECT count(DISTINCT points)::text AS n FROM leaderboard_entries
      WHERE board = 'all'`.execute(db)
  ).rows[0]!.n;
  await db.destroy();
  const stat = (side: Side) => {
    const list = samples.filter((s) => s.side === side);
    return {
      eventsPerSecond: median(list.map((s) => s.eventsPerSecond)),
      p50Ms: median(list.map((s) => s.p50Ms)),
      p99Ms: median(list.map((s) => s.p99Ms)),
      errors: list.reduce((sum, s) => sum + s.errors, 0),
      capped: list.reduce((sum, s) => sum + s.capped, 0),
      events: list.reduce((sum, s) => sum + s.events, 0),
      cpuMsPerEvent: median(list.map((s) => s.cpuMsPerEvent)),
      dbCpuMsPerEvent: median(list.map((s) => s.dbCpuMsPerEvent)),
      rssPeakMb: Math.max(...list.map((s) => s.rssPeakMb)),
    };
  };
  const service = stat('service');
  const baseline = stat('baseline');
  const floor = settings.floor ? stat('floor') : undefined;
  const ratio = service.eventsPerSecond / baseline.eventsPerSecond;
  const floorRatio = floor && floor.eventsPerSecond / baseline.eventsPerSecond;
  const row = (side: Side, s: ReturnType<typeof stat>) =>
    `| ${side} | ${s.eventsPerSecond.toFixed(0)} | ${s.p50Ms.toFixed(1)} / ${s.p99Ms.toFixed(1)} | ` +
    `${s.errors} | ${s.capped} | ${s.events} | ${s.cpuMsPerEvent.toFixed(3)} | ` +
    `${s.dbCpuMsPerEvent.toFixed(3)} | ${s.rssPeakMb.toFixed(0)} |`;
  const checks = [
    `${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'} throughput ${ratio.toFixed(2)} × the baseline (target ≥ ${TARGET_RATIO})`,
    `${service.errors === 0 ? 'PASS' : 'FAIL'} service errors ${service.errors}`,
  ];
  const command = `npm run bench:events -- ${process.argv.slice(2).join(' ')}`.trim();
  const text = [
    `${new Date().toISOString()} · \`${command}\` · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GB · node ${process.version} · ${version.split(',')[0]}`,
    `${fans.toLocaleString('en')} fans (${Number(distinct).toLocaleString('en')} distinct scores), ` +
      `${settings.senders} senders × batches of ${settings.batch} (${settings.types.join(', ')}), ` +
      `${settings.rounds} round(s) × ${settings.duration} s after ${settings.warmup} s of warm-up; medians`,
    '',
    '| server | events/s | batch p50 / p99 ms | errors | capped | events | server CPU ms/event | PostgreSQL CPU ms/event | peak RSS MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('service', service),
    row('baseline', baseline),
    ...(floor ? [row('floor', floor)] : []),
    '',
    `Ratio service / baseline: **${ratio.toFixed(2)}**`,
    ...(floorRatio === undefined
      ? []
      : [
          `Ratio floor / baseline (what item 5's rows alone leave of the baseline): ` +
            `**${floorRatio.toFixed(2)}**; service / floor: ${(service.eventsPerSecond / floor!.eventsPerSecond).toFixed(2)}`,
        ]),
    '',
    ...checks.map((check) => `- ${check}`),
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(path.join(outDir, 'summary.md'), `${text}\n`);
  writeFileSync(
    path.join(outDir, 'results.json'),
    `${JSON.stringify({ command, settings, fans, ratio, floorRatio, service, baseline, floor, samples }, null, 2)}\n`,
  );
  log(`results in ${path.relative(ROOT, outDir)}/`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:events failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
