/**
 * What every part of `npm run bench` shares: the settings read from the
 * environment (bench/run.ts lists them), the scenarios, the sides and the
 * shapes of a sample, and the run's results folder.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const smoke = process.argv.includes('--smoke');
export const env = process.env;
const num = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};

export const settings = {
  duration: num('BENCH_DURATION', smoke ? 2 : 10),
  warmup: num('BENCH_WARMUP', smoke ? 1 : 3),
  connections: num('BENCH_CONNECTIONS', 50),
  threads: num('BENCH_THREADS', 1),
  rounds: num('BENCH_ROUNDS', smoke ? 1 : 3),
  users: num('BENCH_USERS', smoke ? 100 : 2000),
  adminUrl: env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  // The same heap limit as `npm start`.
  nodeFlags: (env.BENCH_NODE_FLAGS ?? '--max-old-space-size=128').split(' ').filter(Boolean),
  cpuProf: env.BENCH_CPU_PROF === '1',
  keepDb: env.BENCH_KEEP_DB === '1',
  /** Upper bound of first-time onboardings per second, to size the fresh-user batches. */
  freshRate: num('BENCH_FRESH_RATE', 3000),
  compare: env.BENCH_COMPARE,
  /** Also run REST PATCH open-loop (bench/open-loop.ts) after the closed-loop scenarios. */
  openLoop: env.BENCH_OPEN_LOOP === '1',
};

export type Kind = 'patch' | 'onboard' | 'fresh';
export interface Scenario {
  name: string;
  kind: Kind;
  service: { method: string; path: string };
  baseline: { method: string; path: string };
  /** Only where the floor answers the same request (REST PATCH). */
  floor?: { method: string; path: string };
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'rest-patch',
    kind: 'patch',
    service: { method: 'PATCH', path: '/api/user' },
    baseline: { method: 'PATCH', path: '/api/user' },
    floor: { method: 'PATCH', path: '/api/user' },
  },
  {
    name: 'trpc-updateUser',
    kind: 'patch',
    service: { method: 'POST', path: '/trpc/updateUser' },
    baseline: { method: 'PATCH', path: '/api/user' },
  },
  {
    name: 'onboard-first',
    kind: 'fresh',
    service: { method: 'POST', path: '/api/user/profile' },
    baseline: { method: 'POST', path: '/api/user/profile' },
  },
  {
    name: 'onboard-repeat',
    kind: 'onboard',
    service: { method: 'POST', path: '/api/user/profile' },
    baseline: { method: 'POST', path: '/api/user/profile' },
  },
];

export type Side = 'service' | 'baseline' | 'floor' | 'previous';
export interface Sample {
  scenario: string;
  side: Side;
  round: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  created: number;
  rssPeakMb: number;
  /** Server process CPU (user + system) per completed request: robust to a busy machine. */
  cpuMsPerRequest: number;
  /**
   * CPU of every `postgres` process per completed request (the database's work
   * for the request, plus whatever else used PostgreSQL on the machine then).
   */
  dbCpuMsPerRequest: number;
  /** Where the service's time went (its /metrics over the load); service side only. */
  tail?: TailDecomposition;
}

/**
 * The service's own account of one load, from its Prometheus metrics scraped
 * before and after (docs/PERFORMANCE.md, "Where the tail comes from"): the
 * server-side duration of the scenario's operation, the wait for a pooled
 * connection, event-loop delay and GC pauses. p99s of histograms are the
 * upper bound of the bucket the 99th percentile falls in.
 */
export interface TailDecomposition {
  serverP50Ms: number;
  serverP99Ms: number;
  poolWaitP50Ms: number;
  poolWaitP99Ms: number;
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  /** GC pause time per second of load, and the longest pause's bucket. */
  gcMsPerSecond: number;
  gcMajorCount: number;
}

export interface Running {
  side: Side;
  url: string;
  /** The service's metrics endpoint (METRICS_PORT), when it has one. */
  metricsUrl?: string;
  child: ChildProcess;
  stderr: () => string;
}

export const stamp = new Date().toISOString().replace(/[:.]/g, '-');
export const outDir = path.join(ROOT, 'bench', 'results', stamp);

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
