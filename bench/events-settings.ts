/** The arguments, settings and shared types of `npm run bench:events` (bench/events.ts). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ChildProcess } from 'node:child_process';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const { values: args } = parseArgs({
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
    burst: { type: 'string' },
  },
});
export const smoke = args.smoke;
export function positive(name: string, value: string | undefined, fallback: number): number {
  const n = Number(value ?? fallback);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}
/** `--burst N`: N events for N distinct fans, as fast as the senders send them (bench/events-burst.ts). */
const burst = args.burst === undefined ? undefined : positive('burst', args.burst, 1);
export const settings = {
  fans: positive(
    'fans',
    args.fans ?? process.env.BENCH_EVENTS_FANS,
    smoke ? 2_000 : (burst ?? 1_000_000),
  ),
  burst,
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
export const BASELINE_SCHEMA = 'bench_events';
export const FLOOR_SCHEMA = 'bench_events_floor';
export const CLIENT_ID = 'bench-events-sender';
export const stamp = new Date().toISOString().replace(/[:.]/g, '-');
export const run = Date.now().toString(36);
export const outDir = path.join(ROOT, 'bench', 'results', `events-${stamp}`);

export type Side = 'service' | 'baseline' | 'floor';
export interface Running {
  side: Side;
  url: string;
  child: ChildProcess;
  stderr: () => string;
}
export interface Sample {
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

export function log(message: string): void {
  process.stderr.write(`[bench:events] ${message}\n`);
}
