/**
 * `npm run bench:profile`: where a request's CPU and allocations go, per
 * request, from profiles of a fixed number of requests (docs/PERFORMANCE.md,
 * "Where a PATCH goes"). Load-independent enough to compare builds on a busy
 * machine: CPU time is counted whether or not the process waited for a core,
 * and it is divided by a known number of requests.
 *
 * It builds the service, starts it on a fresh database with the profiler
 * preload (bench/profiler-preload.mjs), onboards BENCH_USERS users, and for
 * each scenario sends BENCH_PROFILE_WARMUP requests, then BENCH_PROFILE_ROUNDS
 * runs of BENCH_PROFILE_REQUESTS without a profiler (the process's CPU per
 * request, /proc, median), then as many under a CPU profile, then as many
 * under an allocation (sampling heap) profile, BENCH_PROFILE_CONCURRENCY at
 * a time. It prints per request: CPU µs, by package and function (each
 * one's share of the profile's busy samples applied to the CPU per request);
 * bytes allocated, by package and by function. With BENCH_COMPARE=<ref> the
 * build of that commit runs beside it, on its own database, and the
 * unprofiled rounds alternate between the two builds.
 *
 *   npm run bench:profile                 (BENCH_SCENARIOS: rest-patch,trpc-updateUser,onboard-first)
 *   npm run bench:profile -- --smoke      a few hundred requests, to check it works
 *
 * The profiles stay in bench/results/<time>/ (read them with
 * bench/profile-summary.ts or Chrome DevTools).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { fixedCount, type BenchUser, type LoadTarget } from './http-load.js';
import { startIssuer, type BenchIssuer } from './issuer.js';
import { readCpuMs } from './proc.js';
import { summariseCpu, summariseHeap, top, type CpuProfile, type HeapProfile } from './profiles.js';
import { buildPrevious, removePrevious, startService, stop } from './servers.js';
import {
  env,
  log,
  median,
  outDir,
  ROOT,
  SCENARIOS,
  settings,
  smoke,
  stamp,
  type Running,
} from './settings.js';
import { onboardPool } from './users.js';

const count = (name: string, fallback: number) => Number(env[name] ?? fallback);
const requests = count('BENCH_PROFILE_REQUESTS', smoke ? 300 : 3000);
const warmup = count('BENCH_PROFILE_WARMUP', smoke ? 200 : 2000);
const concurrency = count('BENCH_PROFILE_CONCURRENCY', 10);
const rounds = count('BENCH_PROFILE_ROUNDS', smoke ? 1 : 3);
const selected = (env.BENCH_SCENARIOS ?? 'rest-patch,trpc-updateUser,onboard-first').split(',');
const PRELOAD = path.join(ROOT, 'bench', 'profiler-preload.mjs');

interface Profiled {
  side: string;
  scenario: string;
  /** The process's CPU (user + system, /proc) per request: without a profiler, and under the CPU profiler. */
  plainCpuUs: number;
  processCpuUs: number;
  cpu: ReturnType<typeof summariseCpu>;
  heap: ReturnType<typeof summariseHeap>;
  errors: number;
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  log('building the service');
  if (
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status
  )
    throw new Error('build failed');
  const previousRoot = settings.compare ? buildPrevious(settings.compare) : undefined;
  const admin = new Kysely<unknown>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: settings.adminUrl, max: 1 }),
    }),
  });
  const base = `profile_${stamp.replace(/-/g, '_').toLowerCase()}`;
  const sides = [
    { side: 'service' as const, root: ROOT, db: base },
    ...(previousRoot
      ? [{ side: 'previous' as const, root: previousRoot, db: `${base}_previous` }]
      : []),
  ];
  const issuer = await startIssuer();
  const servers: { server: Running; db: string; pool: BenchUser[] }[] = [];
  try {
    for (const { side, root, db } of sides) {
      await sql`create database ${sql.id(db)}`.execute(admin);
      const url = new URL(settings.adminUrl);
      url.pathname = `/${db}`;
      const server = await startService(issuer, url.href, root, side, {
        flags: ['--import', PRELOAD],
        env: { BENCH_PROFILE_DIR: outDir },
      });
      servers.push({ server, db, pool: [] });
    }
    for (const entry of servers) {
      log(`${entry.server.side}: onboarding ${settings.users} users`);
      entry.pool = Array.from({ length: settings.users }, (_, i) => ({
        token: issuer.sign(`${entry.server.side}-${i}`),
        handle: `${entry.server.side.slice(0, 4)}_${i}`,
      }));
      await onboardPool(entry.server.url, entry.pool);
    }
    report(await profileAll(servers, issuer));
  } finally {
    for (const { server, db } of servers) {
      await stop(server);
      await sql`drop database if exists ${sql.id(db)} with (force)`.execute(admin);
    }
    await issuer.close();
    if (previousRoot) removePrevious(previousRoot);
    await admin.destroy();
  }
}

/**
 * Per scenario: each build warmed up, then BENCH_PROFILE_ROUNDS unprofiled
 * runs per build in rounds that rotate which goes first (the median of the
 * process CPU per request), then one CPU-profiled and one heap-profiled run
 * per build.
 */
async function profileAll(
  servers: { server: Running; pool: BenchUser[] }[],
  issuer: BenchIssuer,
): Promise<Profiled[]> {
  let fresh = 0;
  const out: Profiled[] = [];
  for (const scenario of SCENARIOS.filter((s) => selected.includes(s.name))) {
    const target = ({ server, pool }: (typeof servers)[number], n: number): LoadTarget => ({
      url: server.url,
      ...scenario.service,
      kind: scenario.kind,
      users:
        scenario.kind === 'fresh'
          ? Array.from({ length: n }, () => {
              fresh += 1;
              return { token: issuer.sign(`fresh-${server.side}-${fresh}`), handle: `p_${fresh}` };
            })
          : pool,
    });
    const cpuOf = async (
      entry: (typeof servers)[number],
      run: () => Promise<{ errors: number }>,
    ) => {
      const before = readCpuMs(entry.server.child.pid!);
      const { errors } = await run();
      return { us: ((readCpuMs(entry.server.child.pid!) - before) * 1000) / requests, errors };
    };
    for (const entry of servers) await fixedCount(target(entry, warmup), warmup, concurrency);
    const plain = new Map(servers.map((entry) => [entry, { us: [] as number[], errors: 0 }]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < servers.length; i++) {
        const entry = servers[(i + round) % servers.length]!;
        const { us, errors } = await cpuOf(entry, () =>
          fixedCount(target(entry, requests), requests, concurrency),
        );
        plain.get(entry)!.us.push(us);
        plain.get(entry)!.errors += errors;
      }
    }
    for (const entry of servers) {
      const { server } = entry;
      const label = `${server.side}-${scenario.name}`;
      let cpuRun!: { load: { errors: number }; profile: string };
      const { us: processCpuUs } = await cpuOf(entry, async () => {
        cpuRun = await profiled(server, 'cpu', label, () =>
          fixedCount(target(entry, requests), requests, concurrency),
        );
        return cpuRun.load;
      });
      const heapRun = await profiled(server, 'heap', label, () =>
        fixedCount(target(entry, requests), requests, concurrency),
      );
      const result: Profiled = {
        side: server.side,
        scenario: scenario.name,
        processCpuUs,
        plainCpuUs: median(plain.get(entry)!.us),
        cpu: summariseCpu(JSON.parse(cpuRun.profile) as CpuProfile, (url) => url.endsWith(PRELOAD)),
        heap: summariseHeap(JSON.parse(heapRun.profile) as HeapProfile),
        errors: plain.get(entry)!.errors + cpuRun.load.errors + heapRun.load.errors,
      };
      log(
        `${server.side} ${scenario.name}: ${result.plainCpuUs.toFixed(0)} µs CPU/req ` +
          `(rounds: ${plain
            .get(entry)!
            .us.map((us) => us.toFixed(0))
            .join(', ')}; ${processCpuUs.toFixed(0)} under the profiler), ` +
          `${(result.heap.totalBytes / requests / 1024).toFixed(1)} KiB allocated/req, ${result.errors} errors`,
      );
      out.push(result);
    }
  }
  return out;
}

/** Runs `load` between the two SIGUSR2s of the profiler preload; returns the profile's text. */
async function profiled<T>(
  server: Running,
  kind: 'cpu' | 'heap',
  name: string,
  load: () => Promise<T>,
): Promise<{ load: T; profile: string }> {
  const label = `${name}-${kind}`;
  writeFileSync(path.join(outDir, 'next-label'), `${kind} ${label}`);
  server.child.kill('SIGUSR2');
  await until(path.join(outDir, `${label}.ready`));
  const result = await load();
  server.child.kill('SIGUSR2');
  await until(path.join(outDir, `${label}.done`));
  const file = path.join(outDir, `${label}.${kind === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
  return { load: result, profile: readFileSync(file, 'utf8') };
}

async function until(file: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} did not appear`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function report(results: Profiled[]): void {
  const lines: string[] = [
    `${new Date().toISOString()} · npm run bench:profile${smoke ? ' -- --smoke' : ''} · ` +
      `${requests} requests per profile, ${concurrency} at a time, after ${warmup}` +
      (settings.compare ? ` · previous = ${settings.compare}` : ''),
    '',
    '| scenario | side | CPU µs/req | under the CPU profiler | busy µs/req in the profile (wall clock) | GC share of busy | KiB allocated/req | errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.scenario} | ${r.side} | ${r.plainCpuUs.toFixed(0)} | ${r.processCpuUs.toFixed(0)} | ${(r.cpu.busyUs / requests).toFixed(0)} | ` +
        `${((r.cpu.garbageCollectorUs / r.cpu.busyUs) * 100).toFixed(1)} % | ${(r.heap.totalBytes / requests / 1024).toFixed(1)} | ${r.errors} |`,
    );
  }
  for (const r of results) {
    // A profile's sample times are wall clock, which a busy machine stretches; its
    // proportions are not, so each share is applied to the process's CPU per request.
    const perReq = (us: number) => ((us / r.cpu.busyUs) * r.plainCpuUs).toFixed(1);
    const share = (us: number) => `${((us / r.cpu.busyUs) * 100).toFixed(1)} %`;
    lines.push(
      '',
      `### ${r.scenario}, ${r.side}`,
      '',
      'Self CPU per request by package: µs (the share of busy samples × the CPU per request without the profiler), share:',
      '',
    );
    for (const [name, us] of top(r.cpu.byOrigin, 15)) {
      lines.push(`- ${perReq(us)} µs, ${share(us)}: ${name}`);
    }
    lines.push('', 'Inclusive CPU per request (a package and what it calls):', '');
    for (const [name, us] of top(r.cpu.inclusive, 15)) {
      lines.push(`- ${perReq(us)} µs, ${share(us)}: ${name}`);
    }
    lines.push('', 'Self CPU per request by function:', '');
    for (const [name, us] of top(r.cpu.byFunction, 25)) {
      lines.push(`- ${perReq(us)} µs, ${share(us)}: ${name}`);
    }
    lines.push('', 'Bytes allocated per request, by package:', '');
    for (const [name, bytes] of top(r.heap.byOrigin, 12)) {
      lines.push(`- ${(bytes / requests).toFixed(0)} B ${name}`);
    }
    lines.push('', 'Bytes allocated per request, by function:', '');
    for (const [name, bytes] of top(r.heap.byFunction, 25)) {
      lines.push(`- ${(bytes / requests).toFixed(0)} B ${name}`);
    }
  }
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(`\n${text}`);
  writeFileSync(path.join(outDir, 'profile.md'), text);
  log(`profiles and profile.md in ${path.relative(ROOT, outDir)}/`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
