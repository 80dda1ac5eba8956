/**
 * The settings of `npm run bench:live` (bench/live.ts): its flags (`--burst`,
 * `--burst-seconds`, `--burst-senders`, `--rate`, `--instances`) and its
 * LIVE_BENCH_* environment variables, parsed once.
 */
import { parseArgs } from 'node:util';
import type { WriteMode } from './live-writes.js';

const env = process.env;
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);
const heapMb = num('LIVE_BENCH_HEAP_MB', 128);
const { values: flags } = parseArgs({
  options: {
    burst: { type: 'string' },
    'burst-seconds': { type: 'string', default: '10' },
    'burst-senders': { type: 'string', default: '4' },
    rate: { type: 'string' },
    instances: { type: 'string', default: '1' },
  },
});
/** `--burst N`: the match day's fans (undefined: no burst). */
export const burst = flags.burst === undefined ? undefined : Number(flags.burst);
export const settings = {
  adminUrl: env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  heapMb,
  /** Unset: the service's default limit for that heap, which the bench fills on each instance. */
  streams: env.LIVE_BENCH_STREAMS === undefined ? undefined : num('LIVE_BENCH_STREAMS', 0),
  /** Of those, leaderboardEvents streams (on 50 team boards); the rest are myEvents. */
  boardStreams: num('LIVE_BENCH_BOARD_STREAMS', 0),
  /** A burst's fans have one stream each unless LIVE_BENCH_STREAMS_PER_USER says otherwise. */
  perUser: num('LIVE_BENCH_STREAMS_PER_USER', burst === undefined ? 5 : 1),
  perAddress: 100,
  writes: burst ?? (env.LIVE_BENCH_WRITES === undefined ? undefined : num('LIVE_BENCH_WRITES', 0)),
  mode: (burst !== undefined
    ? {
        kind: 'burst',
        seconds: Number(flags['burst-seconds']),
        senders: Number(flags['burst-senders']),
      }
    : flags.rate !== undefined
      ? { kind: 'paced', rate: Number(flags.rate) }
      : { kind: 'closed', concurrency: num('LIVE_BENCH_CONCURRENCY', 10) }) as WriteMode,
  instances: Number(flags.instances),
  backgroundRps: num('LIVE_BENCH_BACKGROUND_RPS', 50),
  webhookEvents: num('LIVE_BENCH_WEBHOOK_EVENTS', 10_000),
  /** `sse` (tRPC's SSE, a request per stream) or `ws` (tRPC's WebSocket, a connection per stream). */
  transport: env.LIVE_BENCH_TRANSPORT === 'ws' ? ('ws' as const) : ('sse' as const),
  /** A directory: the service writes heap snapshots there, before and with the streams open. */
  snapshots: env.LIVE_BENCH_HEAP_SNAPSHOTS,
};
