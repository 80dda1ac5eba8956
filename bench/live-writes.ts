/**
 * The awarding writes of `npm run bench:live` (bench/live.ts) and what their
 * subscribers got. Three ways to send them:
 *
 * - `closed`: every writer once, `concurrency` at a time (the default run);
 * - `burst`: every writer at once, as fast as the database takes them
 *   (`--burst N`), at most BURST_IN_FLIGHT in flight;
 * - `paced`: open loop, `rate` writes a second started on schedule whether
 *   or not the earlier ones finished (`--rate R`).
 *
 * Each myEvents stream of a writer watches for the write's own first event
 * (the `quest_completed` of `name_rival`) and checks that it comes once, and that the
 * stream's event ids only grow.
 */
import { pool, quantile } from './live-clients.js';

/**
 * The most writes of a burst in flight at once (the rest queue). A direct
 * write holds its transaction's connection of the bench's pool (20) while
 * it waits for the pool again: at 200 in flight every connection was held
 * by a write waiting for one and the burst never ended; at 10 it drains.
 */
export const BURST_IN_FLIGHT = 10;

export type WriteMode =
  { kind: 'closed'; concurrency: number } | { kind: 'burst' } | { kind: 'paced'; rate: number };

export interface Writer {
  /** When the write's COMMIT (or its HTTP answer) was sent and acknowledged, performance.now(). */
  commitSentAt: number;
  committedAt: number;
}

/** One myEvents stream, as its writer's write reached it. */
export interface Watch<W extends Writer = Writer> {
  writer: W;
  /** When the write's first event arrived (0: not yet). */
  firstAt: number;
  /** How many times it arrived (1 is right). */
  seen: number;
  lastId: bigint;
  /** Messages whose id was not above the one before. */
  outOfOrder: number;
}

const EVENT_ID = /(?:^\{|"data":\{)"id":"(\d+)"/;

/** A stream's message handler: `data` is the SSE data text or the WebSocket frame. */
export function watching<W extends Writer>(
  writer: W,
): { watch: Watch<W>; onEvent(data: string): void } {
  const watch: Watch<W> = { writer, firstAt: 0, seen: 0, lastId: 0n, outOfOrder: 0 };
  return {
    watch,
    onEvent(data) {
      const id = EVENT_ID.exec(data)?.[1];
      if (id !== undefined) {
        if (BigInt(id) <= watch.lastId) watch.outOfOrder += 1;
        else watch.lastId = BigInt(id);
      }
      // The write's first event: its quest's completion (its points_awarded names the quest too).
      if (!data.includes('"type":"quest_completed"') || !data.includes('name_rival')) return;
      watch.seen += 1;
      if (watch.firstAt === 0) watch.firstAt = performance.now();
    },
  };
}

/** Runs `write` for every writer the way `mode` says; resolves when all ended. */
export async function runWrites<W extends Writer>(
  writers: W[],
  mode: WriteMode,
  write: (writer: W) => Promise<void>,
): Promise<{ startedAt: number; seconds: number }> {
  const startedAt = performance.now();
  if (mode.kind === 'closed') await pool(writers, mode.concurrency, write);
  else if (mode.kind === 'burst') await pool(writers, BURST_IN_FLIGHT, write);
  else {
    const running: Array<Promise<void>> = [];
    for (let i = 0; i < writers.length; i += 1) {
      const due = startedAt + (i * 1000) / mode.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      running.push(write(writers[i]!));
    }
    await Promise.all(running);
  }
  return { startedAt, seconds: (performance.now() - startedAt) / 1000 };
}

const stats = (sorted: number[]) => ({
  p50: Math.round(quantile(sorted, 0.5) * 10) / 10,
  p99: Math.round(quantile(sorted, 0.99) * 10) / 10,
  max: Math.round((sorted.at(-1) ?? NaN) * 10) / 10,
});

/**
 * What the writes' subscribers got: the delay from each write's
 * acknowledgement to each of its streams (negative when the event beat the
 * acknowledgement), the time from the first write to the last stream
 * reached, and every stream that missed its event, got it twice, or saw ids
 * out of order.
 */
export function deliveries(
  writers: Writer[],
  watches: Watch[],
  run: { startedAt: number; seconds: number },
) {
  const reached = watches.filter((watch) => watch.firstAt > 0);
  const delays = reached
    .map((watch) => watch.firstAt - watch.writer.committedAt)
    .sort((a, b) => a - b);
  const roundTrips = writers.map((w) => w.committedAt - w.commitSentAt).sort((a, b) => a - b);
  const lastAt = reached.reduce((last, watch) => Math.max(last, watch.firstAt), run.startedAt);
  return {
    writes: writers.length,
    writesPerSecond: Math.round(writers.length / run.seconds),
    streams: watches.length,
    fromCommit: stats(delays),
    commitRoundTripMs: { p99: stats(roundTrips).p99, max: stats(roundTrips).max },
    drainMs: Math.round(lastAt - run.startedAt),
    missing: watches.length - reached.length,
    duplicated: watches.filter((watch) => watch.seen > 1).length,
    outOfOrder: watches.reduce((sum, watch) => sum + watch.outOfOrder, 0),
  };
}
