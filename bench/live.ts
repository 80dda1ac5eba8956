/**
 * `npm run bench:live`: live streams and webhooks of one built service
 * process on a fresh PostgreSQL database (127.0.0.1:5432 unless
 * BENCH_ADMIN_URL says otherwise). Prints one JSON summary:
 *
 * 1. Capacity: the service runs with `--max-old-space-size=LIVE_BENCH_HEAP_MB`
 *    (128, the recommended heap) and its default stream limit, which is what that
 *    heap holds (src/live/capacity.ts). The bench opens that many streams
 *    through /trpc (tRPC's Express adapter, as every client) —
 *    LIVE_BENCH_BOARD_STREAMS (0) leaderboardEvents streams on 50 team
 *    boards, the rest myEvents, LIVE_BENCH_STREAMS_PER_USER (5) per
 *    identity, at most 100 per loopback address (the default per-address
 *    limit) — plain SSE readers in this process, checks that one more is
 *    refused with Retry-After, and reports the server's RSS idle and with the
 *    streams open, RSS per stream, its peak RSS (VmHWM) over the whole run,
 *    and the heap one open stream holds (heap in use after a full GC, with
 *    and without the streams: bench/heap-probe.cjs is preloaded into the
 *    service to answer that over IPC). LIVE_BENCH_STREAMS sets another total
 *    number of streams (and the limit to match).
 * 2. Under write load, with every stream open: LIVE_BENCH_WRITES users
 *    (default: one per identity) each make one awarding write,
 *    LIVE_BENCH_CONCURRENCY at a time, through the real write path
 *    (src/services/profile.ts) from this process, while
 *    LIVE_BENCH_BACKGROUND_RPS PATCH requests per second (50) go to the
 *    service over HTTP. Each write runs in a transaction of its own, so its
 *    COMMIT is a round trip of its own: the delay is measured from the moment
 *    the COMMIT was acknowledged to the moment the user's first event reached
 *    the bench's reader (p50/p99/max; negative when the event beat the
 *    acknowledgement). The commit happened within `commitRoundTripMs` before
 *    that moment (its p99 and max are reported: the measurement's error).
 * 3. Webhook throughput: LIVE_BENCH_WEBHOOK_EVENTS events (10 per user) are
 *    appended at once; the service POSTs them, signed, to a receiver in this
 *    process; reports events/s from the append to the last 2xx.
 *
 * LIVE_BENCH_TRANSPORT=ws opens every stream over tRPC's WebSocket transport
 * (one connection per stream, bench/live-clients.ts) instead of SSE.
 *
 * `serviceAlive` says whether the service was still up at the end (it must
 * be: a refusal, never a crash).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../db/schema.js';
import { CompiledStatements } from '../db/statements.js';
import { streamCapacity } from '../src/live/capacity.js';
import { updateProfile } from '../src/services/profile.js';
import { UserStateCache } from '../src/services/state-cache.js';
import { CatalogCache } from '../src/services/catalog.js';
import { benchServiceEnv, startIssuer } from './issuer.js';
import {
  backgroundLoad,
  heapSizeLimit,
  memory,
  openSocketStream,
  openStream,
  pool,
  quantile,
  type Stream,
} from './live-clients.js';
import { startReceiver, webhookThroughput } from './live-webhooks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);
const heapMb = num('LIVE_BENCH_HEAP_MB', 128);
const settings = {
  adminUrl: env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  heapMb,
  /** Unset: the service's default limit for that heap, which the bench fills. */
  streams: env.LIVE_BENCH_STREAMS === undefined ? undefined : num('LIVE_BENCH_STREAMS', 0),
  /** Of those, leaderboardEvents streams (on 50 team boards); the rest are myEvents. */
  boardStreams: num('LIVE_BENCH_BOARD_STREAMS', 0),
  perUser: num('LIVE_BENCH_STREAMS_PER_USER', 5),
  perAddress: 100,
  writes: env.LIVE_BENCH_WRITES === undefined ? undefined : num('LIVE_BENCH_WRITES', 0),
  concurrency: num('LIVE_BENCH_CONCURRENCY', 10),
  backgroundRps: num('LIVE_BENCH_BACKGROUND_RPS', 50),
  webhookEvents: num('LIVE_BENCH_WEBHOOK_EVENTS', 10_000),
  /** `sse` (tRPC's SSE, a request per stream) or `ws` (tRPC's WebSocket, a connection per stream). */
  transport: env.LIVE_BENCH_TRANSPORT === 'ws' ? ('ws' as const) : ('sse' as const),
  /** A directory: the service writes heap snapshots there, before and with the streams open. */
  snapshots: env.LIVE_BENCH_HEAP_SNAPSHOTS,
};

const log = (message: string) => process.stderr.write(`[bench:live] ${message}\n`);

async function main(): Promise<void> {
  log('building the service');
  if (spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }).status !== 0) {
    throw new Error('build failed');
  }
  const heapLimit = heapSizeLimit(settings.heapMb);
  const total = settings.streams ?? streamCapacity(heapLimit);
  const boardStreams = Math.min(settings.boardStreams, total);
  const streams = total - boardStreams;
  const users = Math.ceil(streams / settings.perUser);
  const dbName = `bench_live_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(settings.adminUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.href;

  const issuer = await startIssuer();
  const receiver = await startReceiver();
  const receiverUrl = receiver.url;

  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const service: ChildProcess = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--require',
      './bench/heap-probe.cjs',
      `--max-old-space-size=${settings.heapMb}`,
      'dist/src/server.js',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: env.PATH,
        ...benchServiceEnv(issuer, databaseUrl, port),
        RATE_LIMIT_PER_IP: '0',
        RATE_LIMIT_PER_USER: '0',
        ...(settings.streams !== undefined && { LIVE_MAX_STREAMS: String(total) }),
        LIVE_MAX_STREAMS_PER_USER: String(settings.perUser),
        LIVE_MAX_STREAMS_PER_IP: String(settings.perAddress),
        WEBHOOK_URL: receiverUrl,
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        // The bench's receiver listens on this machine.
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  /** The service's heap in use after a full GC (bench/heap-probe.cjs), in bytes. */
  const serviceHeap = () =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the heap probe did not answer')), 30_000);
      service.once('message', (message: { heapUsed: number }) => {
        clearTimeout(timer);
        resolve(message.heapUsed);
      });
      service.send('heap');
    });
  /** Has the service write a heap snapshot to `LIVE_BENCH_HEAP_SNAPSHOTS/<name>` (for finding what a stream holds). */
  const snapshot = async (name: string) => {
    if (!settings.snapshots) return;
    const path = `${settings.snapshots}/${name}.heapsnapshot`;
    await new Promise<void>((resolve) => {
      service.once('message', () => resolve());
      service.send({ snapshot: path });
    });
    log(`heap snapshot: ${path}`);
  };
  const base = `http://127.0.0.1:${port}`;
  const benchPool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  // DROP DATABASE … WITH (FORCE) at the end ends any connection still open
  // (one the pool was still opening when it was told to end): an idle
  // client's error is logged, not thrown, so it cannot end the run.
  benchPool.on('error', (err) => log(`bench pool: ${err.message}`));
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: benchPool }),
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

    log(`onboarding ${users} users`);
    const fans = Array.from({ length: users }, (_, i) => ({
      index: i,
      token: issuer.sign(`live-bench-${dbName}-${i}`),
      id: '',
      firstEventAt: 0,
      commitSentAt: 0,
      committedAt: 0,
    }));
    await pool(fans, 20, async (fan) => {
      const response = await fetch(`${base}/api/user/profile`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fan.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ favoriteTeam: `Team ${fan.index % 50}` }),
      });
      if (response.status !== 201) throw new Error(`onboarding answered ${response.status}`);
      fan.id = ((await response.json()) as { data: { user: { id: string } } }).data.user.id;
    });

    const heapIdle = await serviceHeap();
    await snapshot('idle');
    log(
      `opening ${streams} myEvents and ${boardStreams} leaderboardEvents streams, ` +
        `${settings.perUser} per user`,
    );
    const slots = Array.from({ length: streams }, (_, n) => n);
    const address = (n: number) =>
      `127.${1 + Math.floor(n / settings.perAddress / 62_500)}.${Math.floor(n / settings.perAddress / 250) % 250}.${2 + (Math.floor(n / settings.perAddress) % 250)}`;
    /** A stream over the transport the run measures (`procedure` with `input`). */
    const openOne = (
      token: string,
      from: string,
      onEvent: (data: string) => void,
      procedure = 'myEvents',
      input?: unknown,
    ): Promise<Stream> =>
      settings.transport === 'ws'
        ? openSocketStream(base, token, from, onEvent, procedure, input)
        : openStream(
            base,
            token,
            from,
            agent,
            onEvent,
            input === undefined
              ? procedure
              : `${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`,
          );
    await pool(slots, 50, async (n) => {
      const fan = fans[Math.floor(n / settings.perUser)]!;
      const stream = await openOne(fan.token, address(n), (data) => {
        // The write's own first event; a late onboarding event does not count.
        if (fan.firstEventAt === 0 && data.includes('name_rival')) {
          fan.firstEventAt = performance.now();
        }
      });
      if (stream.retryAfter !== undefined) throw new Error(`stream ${n} was refused`);
      closers.push(stream.close);
    });
    // Leaderboard streams: identities of their own (the per-user limit), after the myEvents addresses.
    const boardSlots = Array.from({ length: boardStreams }, (_, n) => n);
    const boardTokens = Array.from({ length: Math.ceil(boardStreams / settings.perUser) }, (_, i) =>
      issuer.sign(`live-bench-${dbName}-board-${i}`),
    );
    let boardUpdates = 0;
    await pool(boardSlots, 50, async (n) => {
      const stream = await openOne(
        boardTokens[Math.floor(n / settings.perUser)]!,
        address(streams + settings.perAddress + n),
        () => (boardUpdates += 1),
        'leaderboardEvents',
        { team: `Team ${n % 50}`, top: 10 },
      );
      if (stream.retryAfter !== undefined) throw new Error(`board stream ${n} was refused`);
      closers.push(stream.close);
    });
    // One more than the limit: refused, with Retry-After, not a crash.
    const extra = issuer.sign(`live-bench-${dbName}-extra`);
    const beyond = await openOne(
      extra,
      address(streams + boardStreams + 2 * settings.perAddress),
      () => {},
    );
    beyond.close();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const open = serviceMemory();
    const heapOpen = await serviceHeap();
    await snapshot('streams');

    const writers = fans.slice(0, settings.writes ?? fans.length);
    log(
      `${writers.length} awarding writes, ${settings.concurrency} at a time, ` +
        `with ${settings.backgroundRps} PATCH/s over HTTP`,
    );
    const background = backgroundLoad(
      base,
      fans.map((fan) => fan.token),
      settings.backgroundRps,
    );
    const started = performance.now();
    const catalog = new CatalogCache(db, { refreshMs: 60_000 });
    await pool(writers, settings.concurrency, async (fan) => {
      // rivalTeam completes name_rival: quest_completed, points_awarded, rank_changed.
      // The write's statement in a transaction of its own: its COMMIT is the next round trip.
      await db.transaction().execute(async (trx) => {
        await updateProfile(
          {
            db: trx,
            statements,
            clock: () => new Date(),
            config: { handles: { cooldownDays: 0, reserveDays: 0 } },
            userStates: new UserStateCache(0),
            catalog,
          },
          fan.id,
          { rivalTeam: 'Rivals' },
        );
        fan.commitSentAt = performance.now();
      });
      fan.committedAt = performance.now();
    });
    const writeSeconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await background.stop();
    const underLoad = serviceMemory();
    // From the COMMIT's acknowledgement (negative when the event beat it); the
    // commit itself happened within the COMMIT's round trip before that.
    const arrived = writers.filter((fan) => fan.firstEventAt > 0);
    const fromCommit = arrived
      .map((fan) => fan.firstEventAt - fan.committedAt)
      .sort((a, b) => a - b);
    const commitRoundTrip = writers
      .map((fan) => fan.committedAt - fan.commitSentAt)
      .sort((a, b) => a - b);
    const missing = writers.length - arrived.length;
    const stats = (sorted: number[]) => ({
      p50: Math.round(quantile(sorted, 0.5) * 10) / 10,
      p99: Math.round(quantile(sorted, 0.99) * 10) / 10,
      max: Math.round((sorted.at(-1) ?? NaN) * 10) / 10,
    });

    const webhooks = await webhookThroughput(db, receiver, fans, settings.webhookEvents, log);

    const summary = {
      transport: settings.transport,
      heapMb: settings.heapMb,
      heapSizeLimitMb: Math.round(heapLimit / 2 ** 20),
      streams: {
        held: closers.length,
        myEvents: streams,
        leaderboardEvents: boardStreams,
        leaderboardUpdates: boardUpdates,
        perUser: settings.perUser,
        limit:
          settings.streams === undefined ? 'default (what the heap holds)' : 'LIVE_MAX_STREAMS',
        oneMoreRefused: beyond.retryAfter !== undefined,
        retryAfter: beyond.retryAfter ?? null,
      },
      rssMb: {
        idle: idle.rssMb,
        withStreams: open.rssMb,
        underWriteLoad: underLoad.rssMb,
        peak: serviceMemory().peakMb,
        perStreamKb: Math.round(((open.rssMb - idle.rssMb) * 1024) / Math.max(1, closers.length)),
      },
      heap: {
        idleMb: Math.round(heapIdle / 2 ** 20),
        withStreamsMb: Math.round(heapOpen / 2 ** 20),
        perStreamKb: Math.round((heapOpen - heapIdle) / 1024 / Math.max(1, closers.length)),
      },
      commitToEventMs: {
        writes: writers.length,
        writesPerSecond: Math.round(writers.length / writeSeconds),
        fromCommit: stats(fromCommit),
        commitRoundTripMs: { p99: stats(commitRoundTrip).p99, max: stats(commitRoundTrip).max },
        missing,
      },
      backgroundPatches: background.counts,
      webhooks,
      serviceAlive: service.exitCode === null,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    if (!summary.serviceAlive || !summary.streams.oneMoreRefused) process.exitCode = 1;
  } finally {
    for (const close of closers) close();
    agent.destroy();
    if (service.exitCode === null) {
      service.kill('SIGTERM');
      await new Promise((resolve) => service.once('exit', resolve));
    }
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
