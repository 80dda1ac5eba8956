/**
 * `npm run bench`: loads the built service, the same-SQL baseline (bench/baseline.ts)
 * and, for REST PATCH, the floor baseline (bench/floor.ts: one UPDATE) in one run,
 * on one fresh PostgreSQL database, with wrk, and prints per scenario req/s, p50,
 * p99, errors, peak server RSS and server CPU per request, with the ratios and
 * whether each target holds.
 *
 *   npm run bench                 full run (BENCH_ROUNDS alternating rounds, medians)
 *   npm run bench -- --smoke      tiny durations, to check that the harness works
 *
 * Env: BENCH_DURATION (s, per round), BENCH_WARMUP (s), BENCH_CONNECTIONS (50),
 * BENCH_THREADS (wrk threads, 1), BENCH_ROUNDS, BENCH_USERS (pool of onboarded users),
 * BENCH_SCENARIOS (comma list), BENCH_ADMIN_URL (a database to CREATE DATABASE from),
 * BENCH_NODE_FLAGS (node flags for the service), BENCH_CPU_PROF=1 (write a
 * .cpuprofile of the service to bench/results/), BENCH_KEEP_DB=1,
 * BENCH_COMPARE=<git ref> (also build that commit of the service in a temporary
 * worktree and run it as a fourth side, "previous", in every round, on its
 * own pool of users and its own database, which that build migrates: a
 * before/after from one run; with BENCH_CPU_PROF=1 both builds write a
 * profile, service.cpuprofile and previous.cpuprofile), BENCH_OPEN_LOOP=1
 * (then REST PATCH open-loop at 40 % of the service's capacity, or BENCH_OPEN_RATE
 * req/s, against the service, the floor and the previous build:
 * bench/open-loop.ts).
 *
 * The parts: bench/settings.ts (settings, scenarios), servers.ts (the
 * servers), users.ts (tokens), closed-loop.ts (wrk and the service's
 * metrics), open-loop.ts and http-load.ts (the bench's own load code),
 * report.ts (tables and targets). Per-request CPU and allocation profiles of
 * a fixed number of requests: bench/profile.ts (`npm run bench:profile`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { load } from './closed-loop.js';
import { startIssuer } from './issuer.js';
import { openLoopRounds } from './open-loop.js';
import { machine, report } from './report.js';
import { buildPrevious, removePrevious, startBaseline, startService, stop } from './servers.js';
import {
  env,
  log,
  outDir,
  ROOT,
  SCENARIOS,
  settings,
  stamp,
  type Running,
  type Sample,
  type Scenario,
  type Side,
} from './settings.js';
import { freshTokens, userPool } from './users.js';

async function main(): Promise<void> {
  if (spawnSync('wrk', ['--version']).error) {
    throw new Error('wrk is not installed (apt-get install -y wrk)');
  }
  mkdirSync(outDir, { recursive: true });
  log(`building the service`);
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('build failed');
  const previousRoot = settings.compare ? buildPrevious(settings.compare) : undefined;

  const dbName = `bench_${stamp.replace(/-/g, '_').toLowerCase()}`;
  const admin = new Kysely<unknown>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: settings.adminUrl, max: 1 }),
    }),
  });
  // The previous build gets a database of its own, which it migrates itself
  // at start: its migrations are not this build's.
  const dbNames = previousRoot ? [dbName, `${dbName}_previous`] : [dbName];
  for (const name of dbNames) await sql`create database ${sql.id(name)}`.execute(admin);
  const urlOf = (name: string) => {
    const url = new URL(settings.adminUrl);
    url.pathname = `/${name}`;
    return url.href;
  };
  const databaseUrl = urlOf(dbName);
  log(`database ${dbNames.join(', ')}`);

  const issuer = await startIssuer();
  const servers: Running[] = [];
  try {
    const service = await startService(issuer, databaseUrl);
    servers.push(service);
    const baseline = await startBaseline(issuer, databaseUrl, 'baseline', 'bench/baseline.ts');
    servers.push(baseline);
    const floor = await startBaseline(issuer, databaseUrl, 'floor', 'bench/floor.ts');
    servers.push(floor);
    const previous = previousRoot
      ? await startService(issuer, urlOf(dbNames[1]!), previousRoot, 'previous')
      : undefined;
    if (previous) servers.push(previous);
    const targets: Partial<Record<Side, Running>> = { service, baseline, floor, previous };

    log(`onboarding ${settings.users} users through the service`);
    const pool = await userPool(issuer, service.url, 'pool');
    // The previous build onboards its own users, in its own database.
    const previousPool = previous && (await userPool(issuer, previous.url, 'prev'));
    const poolOf = (side: Side) => (side === 'previous' ? previousPool! : pool);

    const samples: Sample[] = [];
    const selected = env.BENCH_SCENARIOS?.split(',') ?? SCENARIOS.map((s) => s.name);
    // A fresh scenario needs new users for every load (first-time onboardings); the others reuse each side's pool.
    const tokensFor = (scenario: Scenario, side: Side, label: string, seconds: number): string =>
      scenario.kind === 'fresh'
        ? freshTokens(issuer, `${scenario.name}-${side}-${label}`, seconds)
        : poolOf(side).file;
    const sidesOf = (scenario: Scenario): Side[] => [
      'service',
      'baseline',
      ...(scenario.floor ? (['floor'] as const) : []),
      ...(previous ? (['previous'] as const) : []),
    ];
    // Scenarios of one kind (REST PATCH and tRPC updateUser, which the
    // targets compare with each other) run their rounds interleaved, so both
    // see the same database and the same host: run one after the other, the
    // second ran on a database the first had just churned.
    for (const block of blocksOfKind(SCENARIOS.filter((s) => selected.includes(s.name)))) {
      for (const scenario of block) {
        for (const side of sidesOf(scenario)) {
          const file = tokensFor(scenario, side, 'warm', settings.warmup);
          await load(targets[side]!, scenario, file, settings.warmup);
        }
      }
      for (let round = 1; round <= settings.rounds; round++) {
        for (const scenario of block) {
          const sides = sidesOf(scenario);
          // Each round starts with the next side, so no side always runs first.
          const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]!);
          for (const side of order) {
            const target = targets[side]!;
            const file = tokensFor(scenario, side, String(round), settings.duration);
            const sample = { ...(await load(target, scenario, file, settings.duration)), round };
            samples.push(sample);
            log(
              `${scenario.name} ${side} round ${round}: ${sample.rps.toFixed(0)} req/s, ` +
                `${sample.cpuMsPerRequest.toFixed(2)} ms CPU/req ` +
                `(+ ${sample.dbCpuMsPerRequest.toFixed(2)} ms in PostgreSQL), ` +
                `p50 ${sample.p50Ms.toFixed(1)} ms, p99 ${sample.p99Ms.toFixed(1)} ms, ` +
                `errors ${sample.errors}, RSS ${sample.rssPeakMb.toFixed(0)} MB`,
            );
            if (sample.tail) {
              const t = sample.tail;
              log(
                `  where the time went: server p50/p99 ${t.serverP50Ms} / ${t.serverP99Ms} ms ` +
                  `(bucket bounds), pool wait p50/p99 ${t.poolWaitP50Ms} / ${t.poolWaitP99Ms} ms, ` +
                  `event-loop delay p99 ${t.eventLoopP99Ms.toFixed(1)} ms (max ${t.eventLoopMaxMs.toFixed(1)}), ` +
                  `GC ${t.gcMsPerSecond.toFixed(1)} ms/s, ${t.gcMajorCount} major`,
              );
            }
            if (sample.errors > 0) log(`  ${side} stderr (tail): ${target.stderr().slice(-600)}`);
            if (
              scenario.kind === 'fresh' &&
              sample.created < sample.rps * settings.duration * 0.99
            ) {
              log(`  warning: only ${sample.created} of the requests were first-time onboardings`);
            }
          }
        }
      }
    }
    const openLoop = settings.openLoop
      ? await openLoopRounds({
          targets,
          usersOf: (side) => poolOf(side).users,
          samples,
          poolFile: pool.file,
        })
      : undefined;
    report(samples, openLoop, await machine(admin));
  } finally {
    for (const server of servers.reverse()) await stop(server);
    await issuer.close();
    if (!settings.keepDb) {
      for (const name of dbNames) await sql`drop database if exists ${sql.id(name)}`.execute(admin);
    }
    if (previousRoot) removePrevious(previousRoot);
    await admin.destroy();
  }
}

/** Consecutive scenarios of one kind, together. */
function blocksOfKind(scenarios: Scenario[]): Scenario[][] {
  const blocks: Scenario[][] = [];
  for (const scenario of scenarios) {
    const last = blocks.at(-1);
    if (last && last[0]!.kind === scenario.kind) last.push(scenario);
    else blocks.push([scenario]);
  }
  return blocks;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
