/**
 * One closed-loop load of one server with wrk (bench/load.lua), and what the
 * service's own /metrics say about it (docs/PERFORMANCE.md, "Where the tail
 * comes from").
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { postgresCpuSince, readCpuMs, readPostgresCpuMs, readRssMb } from './proc.js';
import {
  env,
  ROOT,
  settings,
  type Running,
  type Sample,
  type Scenario,
  type TailDecomposition,
} from './settings.js';

export async function load(
  target: Running,
  scenario: Scenario,
  tokensFile: string,
  seconds: number,
): Promise<Omit<Sample, 'round'>> {
  const request = scenario[target.side === 'previous' ? 'service' : target.side]!;
  const metricsBefore = target.metricsUrl ? await scrape(target.metricsUrl) : undefined;
  let rssPeak = readRssMb(target.child.pid!);
  const cpuBefore = readCpuMs(target.child.pid!);
  const dbCpuBefore = readPostgresCpuMs();
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, readRssMb(target.child.pid!));
  }, 100);
  const wrk = spawn(
    'wrk',
    [
      `-t${settings.threads}`,
      `-c${settings.connections}`,
      `-d${seconds}s`,
      '--timeout',
      '10s',
      '-s',
      path.join(ROOT, 'bench', 'load.lua'),
      target.url,
    ],
    {
      env: {
        ...env,
        BENCH_TOKENS: tokensFile,
        BENCH_METHOD: request.method,
        BENCH_PATH: request.path,
        BENCH_KIND: scenario.kind,
        BENCH_THREADS: String(settings.threads),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  wrk.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  wrk.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => wrk.once('exit', resolve));
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, readRssMb(target.child.pid!));
  const cpuMs = readCpuMs(target.child.pid!) - cpuBefore;
  const dbCpuMs = postgresCpuSince(dbCpuBefore);
  const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${out}\n${target.stderr()}`);
  const r = JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, number>;
  const tail =
    metricsBefore && target.metricsUrl
      ? decompose(metricsBefore, await scrape(target.metricsUrl), scenario, r.durationUs! / 1e6)
      : undefined;
  return {
    tail,
    scenario: scenario.name,
    side: target.side,
    rps: r.requests! / (r.durationUs! / 1e6),
    p50Ms: r.p50Us! / 1000,
    p99Ms: r.p99Us! / 1000,
    errors: r.status! + r.connect! + r.read! + r.write! + r.timeout!,
    created: r.created!,
    rssPeakMb: rssPeak,
    cpuMsPerRequest: cpuMs / Math.max(1, r.requests!),
    dbCpuMsPerRequest: dbCpuMs / Math.max(1, r.requests!),
  };
}

/** One scrape of a Prometheus text exposition: sample name with labels → value. */
type Scrape = Map<string, number>;

async function scrape(url: string): Promise<Scrape> {
  const text = await (await fetch(url)).text();
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/**
 * The p50 and p99 (ms) of the histogram `name` over the samples of `after`
 * minus `before` whose labels include `match`: the upper bound of the bucket
 * each percentile falls in (Infinity past the last bucket).
 */
function histogramPercentiles(
  before: Scrape,
  after: Scrape,
  name: string,
  match: string[] = [],
): { p50: number; p99: number } {
  const buckets = new Map<number, number>();
  for (const [key, value] of after) {
    if (!key.startsWith(`${name}_bucket{`) || !match.every((m) => key.includes(m))) continue;
    const le = /le="([^"]+)"/.exec(key)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + value - (before.get(key) ?? 0));
  }
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const total = sorted.at(-1)?.[1] ?? 0;
  const at = (q: number) => (sorted.find(([, n]) => n >= q * total)?.[0] ?? NaN) * 1000;
  return total > 0 ? { p50: at(0.5), p99: at(0.99) } : { p50: NaN, p99: NaN };
}

function decompose(
  before: Scrape,
  after: Scrape,
  scenario: Scenario,
  seconds: number,
): TailDecomposition {
  const operation = scenario.kind === 'patch' ? 'updateUser' : 'onboardProfile';
  const face = scenario.service.path.startsWith('/trpc') ? 'trpc' : 'rest';
  const server = histogramPercentiles(before, after, 'http_request_duration_seconds', [
    `operation="${operation}"`,
    `face="${face}"`,
  ]);
  const pool = histogramPercentiles(before, after, 'ups_db_pool_acquire_seconds');
  const sum = (prefix: string, scrape: Scrape) =>
    [...scrape].filter(([key]) => key.startsWith(prefix)).reduce((total, [, v]) => total + v, 0);
  const gcSeconds =
    sum('nodejs_gc_duration_seconds_sum', after) - sum('nodejs_gc_duration_seconds_sum', before);
  const major = 'nodejs_gc_duration_seconds_count{kind="major"}';
  return {
    serverP50Ms: server.p50,
    serverP99Ms: server.p99,
    poolWaitP50Ms: pool.p50,
    poolWaitP99Ms: pool.p99,
    // prom-client resets its event-loop delay histogram at every scrape: these cover the load.
    eventLoopP99Ms: (after.get('nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
    eventLoopMaxMs: (after.get('nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000,
    gcMsPerSecond: (gcSeconds * 1000) / seconds,
    gcMajorCount: (after.get(major) ?? 0) - (before.get(major) ?? 0),
  };
}
