/**
 * `npm run bench:live`: live streams and webhooks of one built service
 * process on a fresh PostgreSQL database (127.0.0.1:5432 unless
 * BENCH_ADMIN_URL says otherwise). Prints one JSON summary:
 *
 * 1. Holds LIVE_BENCH_STREAMS (1,000) concurrent myEvents streams (one per
 *    user, plain SSE readers in this process) and reports the server's RSS
 *    with them open and its peak RSS (VmHWM) over the run.
 * 2. Delay from commit to event: each of LIVE_BENCH_WRITES users (all of them
 *    by default) makes one awarding write, LIVE_BENCH_CONCURRENCY at a time,
 *    through the real write path (src/services/profile.ts) from this process;
 *    the commit happens between the write's start and its statement's return,
 *    so the delay to that user's first event is reported from both (a lower
 *    and an upper bound; the first is negative when the event beat the
 *    writer's own ack). p50/p99/max.
 * 3. Webhook throughput: LIVE_BENCH_WEBHOOK_EVENTS events (10 per user) are
 *    appended at once; the service POSTs them, signed, to a receiver in this
 *    process; reports events/s from the append to the last 2xx.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { recordEvents } from '../db/queries/events.js';
import type { Database } from '../db/schema.js';
import { CompiledStatements } from '../db/statements.js';
import { updateProfile } from '../src/services/profile.js';
import { UserStateCache } from '../src/services/state-cache.js';
import { benchServiceEnv, startIssuer } from './issuer.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);
const settings = {
  adminUrl: env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  streams: num('LIVE_BENCH_STREAMS', 1_000),
  writes: num('LIVE_BENCH_WRITES', num('LIVE_BENCH_STREAMS', 1_000)),
  concurrency: num('LIVE_BENCH_CONCURRENCY', 10),
  webhookEvents: num('LIVE_BENCH_WEBHOOK_EVENTS', 10_000),
};

const log = (message: string) => process.stderr.write(`[bench:live] ${message}\n`);

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** A plain SSE reader on a raw http request: calls `onEvent` with each event's data. */
function openStream(
  url: string,
  token: string,
  agent: Agent,
  onEvent: (data: string) => void,
): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/trpc/myEvents`,
      { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        let buffer = '';
        let connected = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.startsWith('event: connected')) {
              if (!connected) resolve(() => req.destroy());
              connected = true;
            } else if (!block.startsWith('event:')) {
              const data = block.split('\n').find((line) => line.startsWith('data: '));
              if (data) onEvent(data.slice(6));
            }
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function main(): Promise<void> {
  log('building the service');
  if (spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }).status !== 0) {
    throw new Error('build failed');
  }
  const dbName = `bench_live_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(settings.adminUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.href;

  const issuer = await startIssuer();
  // The webhook receiver: answers 204 and counts.
  let received = 0;
  let lastReceivedAt = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      lastReceivedAt = performance.now();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const service: ChildProcess = spawn(
    process.execPath,
    ['--max-old-space-size=256', 'dist/src/server.js'],
    {
      cwd: ROOT,
      env: {
        PATH: env.PATH,
        ...benchServiceEnv(issuer, databaseUrl, port),
        RATE_LIMIT_PER_IP: '0',
        RATE_LIMIT_PER_USER: '0',
        LIVE_MAX_STREAMS: String(settings.streams + 100),
        WEBHOOK_URL: receiverUrl,
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 20 }) }),
    plugins: [new CamelCasePlugin()],
  });
  const statements = new CompiledStatements(db, { naming: false });
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const closers: Array<() => void> = [];
  try {
    for (let i = 0; ; i += 1) {
      if (service.exitCode !== null) throw new Error('the service exited');
      if (
        await fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 600) throw new Error('the service did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const serviceMemory = () => memory(service.pid!);
    const idle = serviceMemory();

    log(`onboarding ${settings.streams} users`);
    const users = Array.from({ length: settings.streams }, (_, i) => ({
      index: i,
      token: issuer.sign(`live-bench-${dbName}-${i}`),
      id: '',
      firstEventAt: 0,
      writeStartedAt: 0,
      committedAt: 0,
    }));
    await pool(users, 20, async (user) => {
      const response = await fetch(`${base}/api/user/profile`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ favoriteTeam: `Team ${user.index % 50}` }),
      });
      if (response.status !== 201) throw new Error(`onboarding answered ${response.status}`);
      user.id = ((await response.json()) as { data: { user: { id: string } } }).data.user.id;
    });

    log(`opening ${settings.streams} streams`);
    await pool(users, 50, async (user) => {
      closers.push(
        // The write's own first event; a late onboarding event does not count.
        await openStream(base, user.token, agent, (data) => {
          if (user.firstEventAt === 0 && data.includes('name_rival')) {
            user.firstEventAt = performance.now();
          }
        }),
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const open = serviceMemory();

    log(`${settings.writes} awarding writes, ${settings.concurrency} at a time`);
    const writers = users.slice(0, settings.writes);
    const started = performance.now();
    await pool(writers, settings.concurrency, async (user) => {
      // rivalTeam completes name_rival: quest_completed, points_awarded, rank_changed.
      user.writeStartedAt = performance.now();
      await updateProfile(
        {
          db,
          statements,
          clock: () => new Date(),
          config: { handles: { cooldownDays: 0, reserveDays: 0 } },
          userStates: new UserStateCache(0),
        },
        user.id,
        { rivalTeam: 'Rivals' },
      );
      user.committedAt = performance.now();
    });
    const writeSeconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // The commit happens between the write's start and its statement's return:
    // `afterReturn` (negative when the event beat the writer's own ack) bounds
    // the delay from below, `afterStart` from above.
    const arrived = writers.filter((user) => user.firstEventAt > 0);
    const afterReturn = arrived
      .map((user) => user.firstEventAt - user.committedAt)
      .sort((a, b) => a - b);
    const afterStart = arrived
      .map((user) => user.firstEventAt - user.writeStartedAt)
      .sort((a, b) => a - b);
    const missing = writers.length - arrived.length;
    const stats = (sorted: number[]) => ({
      p50: Math.round(quantile(sorted, 0.5) * 10) / 10,
      p99: Math.round(quantile(sorted, 0.99) * 10) / 10,
      max: Math.round((sorted.at(-1) ?? NaN) * 10) / 10,
    });

    log('webhooks: waiting for the queue to drain');
    const pendingCount = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from live_events
            where webhook_next_at is not null`.execute(db)
        ).rows[0]!.n,
      );
    for (let i = 0; (await pendingCount()) > 0 && i < 600; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const perUser = 10;
    const hookUsers = users.slice(0, Math.ceil(settings.webhookEvents / perUser));
    const before = received;
    const appendedAt = performance.now();
    await pool(hookUsers, 10, (user) =>
      db.transaction().execute((trx) =>
        recordEvents(
          trx,
          user.id,
          Array.from({ length: perUser }, (_, k) => ({
            type: 'points_awarded',
            payload: { delta: 1, balance: k + 1, questId: null },
          })),
        ),
      ),
    );
    const target = before + hookUsers.length * perUser;
    for (let i = 0; received < target && i < 3_000; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const webhookSeconds = (lastReceivedAt - appendedAt) / 1000;

    const summary = {
      streams: settings.streams,
      openStreamsAfterRun: closers.length,
      rssMb: { idle: idle.rssMb, with1000Streams: open.rssMb, peak: serviceMemory().peakMb },
      commitToEventMs: {
        writes: writers.length,
        writesPerSecond: Math.round(writers.length / writeSeconds),
        afterStatementReturned: stats(afterReturn),
        afterWriteStarted: stats(afterStart),
        missing,
      },
      webhooks: {
        events: received - before,
        seconds: Math.round(webhookSeconds * 100) / 100,
        eventsPerSecond: Math.round((received - before) / webhookSeconds),
      },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    for (const close of closers) close();
    agent.destroy();
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await db.destroy();
    await issuer.close();
    receiver.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:live failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
