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
 *    number of streams (and each instance's limit to its share).
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
 * Modes (flags after `--`; bench/live-writes.ts):
 * - `--burst N` (the match day): N fans who each have a myEvents stream
 *   (one stream per fan unless LIVE_BENCH_STREAMS_PER_USER says otherwise)
 *   get one `prediction_correct` event each (25 points, no cap) through
 *   `POST /api/events` with a service token holding `events:write`, as
 *   batches of 100 paced evenly over `--burst-seconds` (10) by
 *   `--burst-senders` (4) senders over HTTP, to the instances in turn
 *   (bench/events-post.ts sends a batch, as bench:events does). 101 fans
 *   onboarded first and never awarded stand ahead of them on the board, so
 *   each award moves its fan's global rank. Each fan's stream times its
 *   event's `points_awarded` and its global `rank_changed` from the batch's
 *   HTTP answer; `burst` reports the time from the first send until every
 *   fan had both (`drainMs`), the batches' answers and lateness, the events
 *   recorded and the first error (with its instance), and the fans missing
 *   either message, with one twice, or with ids out of order. No writes of
 *   this process's own.
 * - `--rate R`: the writes started at R a second on schedule (open loop:
 *   a slow write delays none after it).
 * - `--instances 2`: two service processes on the database, each with half
 *   the streams (stream n on instance n mod 2, so a user's streams are on
 *   both) and its own limit; the writes go over HTTP (PATCH /api/user), to
 *   each instance in turn, and their delay counts from the HTTP answer. A
 *   write that fails is counted (`failedWrites`) and the first says why
 *   (the fetch error's causes) and to which instance, alive or not
 *   (`firstFailure`); its stream's event is then missing.
 * Closed and paced modes check that each writer's stream got the write's
 * event once, with ids in order (`missing`, `duplicated`, `outOfOrder`).
 * Peak RSS (VmHWM) is reported per service process (`rssMb[].peak`) and for
 * this process (`benchPeakRssMb`).
 *
 * `serviceAlive` says whether the service was still up at the end (it must
 * be: a refusal, never a crash).
 */
import { spawnSync } from 'node:child_process';
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
import { startIssuer } from './issuer.js';
import { batchBody, errorText, postEvents } from './events-post.js';
import { backgroundLoad, heapSizeLimit, httpClient, memory, pool } from './live-clients.js';
import { startLiveService, type LiveService } from './live-service.js';
import { burst, settings } from './live-settings.js';
import { openStreams } from './live-streams.js';
import { BURST_BATCH, burstDeliveries, deliveries, runBurst, runWrites } from './live-writes.js';
import { startReceiver, webhookThroughput } from './live-webhooks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (message: string) => process.stderr.write(`[bench:live] ${message}\n`);

async function main(): Promise<void> {
  if (![1, 2].includes(settings.instances)) throw new Error('--instances is 1 or 2');
  log('building the service');
  if (spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }).status !== 0) {
    throw new Error('build failed');
  }
  const heapLimit = heapSizeLimit(settings.heapMb);
  const total =
    settings.streams ?? streamCapacity(heapLimit, settings.transport) * settings.instances;
  // Each instance's limit: its share of the streams (stream n is on instance n mod instances).
  const perInstance = Math.ceil(total / settings.instances);
  const boardStreams = Math.min(settings.boardStreams, total);
  const streams = total - boardStreams;
  const withStreams = Math.ceil(streams / settings.perUser);
  if (settings.mode.kind === 'burst' && burst! > withStreams) {
    throw new Error(
      `--burst ${burst} needs as many fans with a myEvents stream; ${streams} streams at ` +
        `${settings.perUser} per fan are ${withStreams} fans (LIVE_BENCH_STREAMS)`,
    );
  }
  const users = Math.max(withStreams, settings.writes ?? 0);
  const dbName = `bench_live_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(settings.adminUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.href;

  const issuer = await startIssuer();
  const receiver = await startReceiver();
  const services: LiveService[] = [];
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
  // The writes over HTTP and the background PATCHes: a bounded pool per instance.
  const http = httpClient();
  const closers: Array<() => void> = [];
  try {
    for (let i = 0; i < settings.instances; i += 1) {
      services.push(
        await startLiveService({
          issuer,
          databaseUrl,
          receiverUrl: receiver.url,
          heapMb: settings.heapMb,
          env: {
            ...(settings.streams !== undefined && { LIVE_MAX_STREAMS: String(perInstance) }),
            LIVE_MAX_STREAMS_PER_USER: String(settings.perUser),
            LIVE_MAX_STREAMS_PER_IP: String(settings.perAddress),
          },
        }),
      );
    }
    const first = services[0]!;
    const serviceOf = (n: number) => services[n % services.length]!;
    /** Has each service write a heap snapshot to `LIVE_BENCH_HEAP_SNAPSHOTS/<name>[-<i>]` (for finding what a stream holds). */
    const snapshot = async (name: string) => {
      if (!settings.snapshots) return;
      for (const [i, service] of services.entries()) {
        const path = `${settings.snapshots}/${name}${services.length > 1 ? `-${i}` : ''}.heapsnapshot`;
        await service.snapshot(path);
        log(`heap snapshot: ${path}`);
      }
    };
    const idle = services.map((service) => service.memory());

    log(`onboarding ${users} users`);
    const fans = Array.from({ length: users }, (_, i) => ({
      index: i,
      subject: `live-bench-${dbName}-${i}`,
      token: issuer.sign(`live-bench-${dbName}-${i}`),
      id: '',
      eventId: settings.mode.kind === 'burst' ? `live-burst-${i}` : undefined,
      commitSentAt: 0,
      committedAt: 0,
    }));
    const onboard = async (token: string, team: string, service: LiveService) => {
      const response = await fetch(`${service.base}/api/user/profile`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ favoriteTeam: team }),
      });
      if (response.status !== 201) throw new Error(`onboarding answered ${response.status}`);
      return ((await response.json()) as { data: { user: { id: string } } }).data.user.id;
    };
    if (settings.mode.kind === 'burst') {
      // More fans than a batch holds, ahead of every burst fan at the
      // onboarding's points (they got there first) and never awarded: a burst
      // fan's award lifts them above all of these, and at most a batch's other
      // fans (awarded in the same statement) get ahead of them on the way, so
      // every burst fan's global rank moves, a rank_changed for each.
      const anchors = Array.from({ length: BURST_BATCH + 1 }, (_, i) => i);
      await pool(anchors, 20, async (i) => {
        await onboard(issuer.sign(`live-bench-${dbName}-anchor-${i}`), 'Anchors', first);
      });
    }
    await pool(fans, 20, async (fan) => {
      fan.id = await onboard(fan.token, `Team ${fan.index % 50}`, serviceOf(fan.index));
    });

    const heapIdle = await Promise.all(services.map((service) => service.heap()));
    await snapshot('idle');
    log(
      `opening ${streams} myEvents and ${boardStreams} leaderboardEvents streams, ` +
        `${settings.perUser} per user, on ${services.length} instance(s)`,
    );
    const { watches, boardUpdates, beyond } = await openStreams({
      services,
      agent,
      issuer,
      dbName,
      fans,
      streams,
      boardStreams,
      closers,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const open = services.map((service) => service.memory());
    const heapOpen = await Promise.all(services.map((service) => service.heap()));
    await snapshot('streams');

    const writers = fans.slice(0, settings.writes ?? fans.length);
    log(
      `${writers.length} awarding writes (${JSON.stringify(settings.mode)}), ` +
        `with ${settings.backgroundRps} PATCH/s over HTTP`,
    );
    const background = backgroundLoad(
      first.base,
      fans.map((fan) => fan.token),
      settings.backgroundRps,
      http.send,
    );
    const catalog = new CatalogCache(db, { refreshMs: 60_000 });
    // rivalTeam completes name_rival: quest_completed, points_awarded, rank_changed.
    // A write that failed (over HTTP: no answer, or not a 2xx) is counted and
    // its stream's event missing; the first says why and to which instance.
    const writeFailures = { count: 0, first: undefined as string | undefined };
    const writeOne = async (fan: (typeof fans)[number]) => {
      if (services.length > 1) {
        // Through an instance: its HTTP answer comes after the COMMIT.
        const instance = fan.index % services.length;
        fan.commitSentAt = performance.now();
        try {
          const response = await http.send(`${serviceOf(fan.index).base}/api/user`, {
            method: 'PATCH',
            headers: { authorization: `Bearer ${fan.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ rivalTeam: 'Rivals' }),
          });
          const text = await response.text();
          if (!response.ok) throw new Error(`answered ${response.status} ${text.slice(0, 300)}`);
        } catch (error) {
          writeFailures.count += 1;
          writeFailures.first ??=
            `write of fan ${fan.index} to instance ${instance} ` +
            `(${serviceOf(fan.index).alive() ? 'alive' : serviceOf(fan.index).exit()}): ${errorText(error)}`;
          return;
        }
      } else {
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
      }
      fan.committedAt = performance.now();
    };
    const writing = new Set(writers);
    const watched = watches.filter((watch) => writing.has(watch.writer));
    let delivered;
    if (settings.mode.kind === 'burst') {
      // The match day: each fan's event through POST /api/events, the batches to the instances in turn.
      const sender = issuer.signService('live-bench-sender', ['events:write']);
      const mode = settings.mode;
      const run = await runBurst(writers, mode, (events, k) => ({
        instance: `instance ${k % services.length}`,
        answer: postEvents(
          services[k % services.length]!.base,
          sender,
          batchBody(events),
          events.length,
        ),
      }));
      // Until every fan had both messages (or 60 s more).
      const until = performance.now() + 60_000;
      while (
        performance.now() < until &&
        watched.some((watch) => watch.awardedAt === 0 || watch.rankAt === 0)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      delivered = { burst: burstDeliveries(watched, run, mode) };
    } else {
      const run = await runWrites(writers, settings.mode, writeOne);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      delivered = {
        commitToEventMs: {
          ...deliveries(writers, watched, run),
          failedWrites: writeFailures.count,
          firstFailure: writeFailures.first ?? null,
        },
      };
    }
    await background.stop();
    const underLoad = services.map((service) => service.memory());

    const webhooks = await webhookThroughput(db, receiver, fans, settings.webhookEvents, log);

    const held = closers.length;
    const summary = {
      transport: settings.transport,
      mode: settings.mode,
      instances: services.length,
      heapMb: settings.heapMb,
      heapSizeLimitMb: Math.round(heapLimit / 2 ** 20),
      streams: {
        held,
        myEvents: streams,
        leaderboardEvents: boardStreams,
        leaderboardUpdates: boardUpdates(),
        perUser: settings.perUser,
        limit:
          settings.streams === undefined ? 'default (what the heap holds)' : 'LIVE_MAX_STREAMS',
        oneMoreRefused: beyond.retryAfter !== undefined,
        retryAfter: beyond.retryAfter ?? null,
      },
      // Per instance, in order.
      rssMb: services.map((service, i) => ({
        idle: idle[i]!.rssMb,
        withStreams: open[i]!.rssMb,
        underWriteLoad: underLoad[i]!.rssMb,
        peak: service.memory().peakMb,
        perStreamKb: Math.round(
          ((open[i]!.rssMb - idle[i]!.rssMb) * 1024 * services.length) / Math.max(1, held),
        ),
      })),
      heap: services.map((_, i) => ({
        idleMb: Math.round(heapIdle[i]! / 2 ** 20),
        withStreamsMb: Math.round(heapOpen[i]! / 2 ** 20),
        perStreamKb: Math.round(
          ((heapOpen[i]! - heapIdle[i]!) * services.length) / 1024 / Math.max(1, held),
        ),
      })),
      /** VmHWM of this process (the streams' readers, the writers). */
      benchPeakRssMb: memory(process.pid).peakMb,
      ...delivered,
      backgroundPatches: background.counts,
      webhooks,
      serviceAlive: services.every((service) => service.alive()),
      serviceExits: services.map((service) => (service.alive() ? null : service.exit())),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    if (!summary.serviceAlive || !summary.streams.oneMoreRefused) process.exitCode = 1;
  } finally {
    for (const close of closers) close();
    agent.destroy();
    await http.close();
    for (const service of services) await service.stop();
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
