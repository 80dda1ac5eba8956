/**
 * The awarding writes of `npm run bench:live` (bench/live.ts) and what their
 * subscribers got. Three ways to send them:
 *
 * - `closed`: every writer once, `concurrency` at a time (the default run);
 * - `paced`: open loop, `rate` writes a second started on schedule whether
 *   or not the earlier ones finished (`--rate R`);
 * - `burst` (the match day, `--burst N`): not a write per writer but one
 *   `prediction_correct` event each (25 points, no cap), sent to
 *   `POST /api/events` as batches of BURST_BATCH (bench/events-post.ts),
 *   batch k due `k × seconds / batches` after the first, `senders` batches
 *   at most in flight (a batch whose sender is still busy goes late, and
 *   the lateness is reported), to `send`'s instance (bench/live.ts
 *   alternates them).
 *
 * In `closed` and `paced`, each myEvents stream of a writer watches for the
 * write's own first event (the `quest_completed` of `name_rival`) and checks
 * that it comes once. In `burst`, it watches for the event's
 * `points_awarded` (its source names the event's id) and the fan's
 * `rank_changed` on the global board, each once. Every stream checks that
 * its event ids only grow.
 */
import { errorText, type BatchAnswer, type EventInput } from './events-post.js';
import { pool, quantile } from './live-clients.js';

/** Events per batch of the burst: the most `POST /api/events` takes (docs/ACTIVITY.md). */
export const BURST_BATCH = 100;
/** The burst's event type: an award with no cap (the default catalog's 25 points). */
export const BURST_EVENT_TYPE = 'prediction_correct';

export type WriteMode =
  | { kind: 'closed'; concurrency: number }
  | { kind: 'burst'; seconds: number; senders: number }
  | { kind: 'paced'; rate: number };

export interface Writer {
  /** When the write's COMMIT (or its HTTP answer) was sent and acknowledged, performance.now(). */
  commitSentAt: number;
  committedAt: number;
  /** In a burst: the fan's `sub` and the id of the fan's event. */
  subject?: string;
  eventId?: string;
}

/** One myEvents stream, as its writer's write reached it. */
export interface Watch<W extends Writer = Writer> {
  writer: W;
  /** When the write's first event arrived (0: not yet). */
  firstAt: number;
  /** How many times it arrived (1 is right). */
  seen: number;
  /** A burst's: when the event's points_awarded and the fan's global rank_changed arrived, and how often. */
  awardedAt: number;
  awarded: number;
  rankAt: number;
  ranked: number;
  lastId: bigint;
  /** Messages whose id was not above the one before. */
  outOfOrder: number;
}

const EVENT_ID = /(?:^\{|"data":\{)"id":"(\d+)"/;

/** A stream's message handler: `data` is the SSE data text or the WebSocket frame. */
export function watching<W extends Writer>(
  writer: W,
): { watch: Watch<W>; onEvent(data: string): void } {
  const watch: Watch<W> = {
    writer,
    firstAt: 0,
    seen: 0,
    awardedAt: 0,
    awarded: 0,
    rankAt: 0,
    ranked: 0,
    lastId: 0n,
    outOfOrder: 0,
  };
  const eventSource = writer.eventId === undefined ? undefined : `"eventId":"${writer.eventId}"`;
  return {
    watch,
    onEvent(data) {
      const id = EVENT_ID.exec(data)?.[1];
      if (id !== undefined) {
        if (BigInt(id) <= watch.lastId) watch.outOfOrder += 1;
        else watch.lastId = BigInt(id);
      }
      if (eventSource !== undefined) {
        // The burst's event: its award (the source names it), then the fan's move on the whole board.
        if (data.includes('"type":"points_awarded"') && data.includes(eventSource)) {
          watch.awarded += 1;
          if (watch.awardedAt === 0) watch.awardedAt = performance.now();
        } else if (data.includes('"type":"rank_changed"') && data.includes('"board":"global"')) {
          watch.ranked += 1;
          if (watch.rankAt === 0) watch.rankAt = performance.now();
        }
        return;
      }
      // The write's first event: its quest's completion (its points_awarded names the quest too).
      if (!data.includes('"type":"quest_completed"') || !data.includes('name_rival')) return;
      watch.seen += 1;
      if (watch.firstAt === 0) watch.firstAt = performance.now();
    },
  };
}

/** Runs `write` for every writer the way `mode` (closed or paced) says; resolves when all ended. */
export async function runWrites<W extends Writer>(
  writers: W[],
  mode: Exclude<WriteMode, { kind: 'burst' }>,
  write: (writer: W) => Promise<void>,
): Promise<{ startedAt: number; seconds: number }> {
  const startedAt = performance.now();
  if (mode.kind === 'closed') await pool(writers, mode.concurrency, write);
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

/** What the burst's sending did: its batches' answers and lateness, and the events' results. */
export interface BurstRun {
  startedAt: number;
  /** From the first send to the last answer. */
  seconds: number;
  batches: number;
  /** Each batch's time from send to answer, ms. */
  batchMs: number[];
  /** The most a batch was sent after it was due (all senders busy), ms. */
  lateMs: number;
  recorded: number;
  /** Events not recorded: rejected, or in a batch that failed. */
  errors: number;
  /** The first error, with the instance it came from. */
  firstError: string | undefined;
}

/**
 * Sends the burst: one `BURST_EVENT_TYPE` event per writer (its `subject`
 * and `eventId`), batch k of BURST_BATCH due at `k × seconds / batches` from
 * the first send, `senders` senders taking the batches in turn.
 * `send(body, k)` posts batch k (the instance is its choice) and names that
 * instance for the report. Every writer of a batch counts its
 * acknowledgement from the batch's HTTP answer.
 */
export async function runBurst<W extends Writer>(
  writers: W[],
  mode: { seconds: number; senders: number },
  send: (events: EventInput[], k: number) => { instance: string; answer: Promise<BatchAnswer> },
): Promise<BurstRun> {
  const batches: W[][] = [];
  for (let start = 0; start < writers.length; start += BURST_BATCH) {
    batches.push(writers.slice(start, start + BURST_BATCH));
  }
  const spacing = (mode.seconds * 1000) / Math.max(1, batches.length);
  const run: BurstRun = {
    startedAt: performance.now(),
    seconds: 0,
    batches: batches.length,
    batchMs: [],
    lateMs: 0,
    recorded: 0,
    errors: 0,
    firstError: undefined,
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, mode.senders) }, async () => {
      while (next < batches.length) {
        const k = next++;
        const batch = batches[k]!;
        const due = run.startedAt + k * spacing;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const sentAt = performance.now();
        run.lateMs = Math.max(run.lateMs, sentAt - due);
        for (const writer of batch) writer.commitSentAt = sentAt;
        const events = batch.map((writer) => ({
          id: writer.eventId!,
          subject: writer.subject!,
          type: BURST_EVENT_TYPE,
        }));
        const { instance, answer: answering } = send(events, k);
        const answer = await answering.catch((error: unknown): BatchAnswer => ({
          ms: undefined,
          error: errorText(error),
        }));
        const answeredAt = performance.now();
        for (const writer of batch) writer.committedAt = answeredAt;
        if (answer.ms !== undefined) run.batchMs.push(answer.ms);
        if (answer.results === undefined) {
          run.errors += batch.length;
          run.firstError ??= `batch ${k} on ${instance}: ${answer.error}`;
          continue;
        }
        for (const result of answer.results) {
          if (result.status === 'recorded') run.recorded += 1;
          else {
            run.errors += 1;
            run.firstError ??= `batch ${k} on ${instance}: ${JSON.stringify(result)}`;
          }
        }
      }
    }),
  );
  run.seconds = (performance.now() - run.startedAt) / 1000;
  return run;
}

/**
 * What the burst's fans got: the delay from each batch's HTTP answer to its
 * fans' points_awarded and rank_changed (negative when the message beat the
 * answer), the time from the first send until every fan had both
 * (`drainMs`; until the last that arrived when some are missing), and the
 * fans whose stream missed either, got one twice, or saw ids out of order.
 */
export function burstDeliveries(
  watches: Watch[],
  run: BurstRun,
  mode: { seconds: number; senders: number },
) {
  const delays = (at: (watch: Watch) => number) =>
    stats(
      watches
        .filter((watch) => at(watch) > 0)
        .map((watch) => at(watch) - watch.writer.committedAt)
        .sort((a, b) => a - b),
    );
  const lastAt = watches.reduce(
    (last, watch) => Math.max(last, watch.awardedAt, watch.rankAt),
    run.startedAt,
  );
  const batchMs = [...run.batchMs].sort((a, b) => a - b);
  return {
    events: watches.length,
    batches: run.batches,
    batchSize: BURST_BATCH,
    senders: mode.senders,
    askedSeconds: mode.seconds,
    /** From the first send to the last answer. */
    sentSeconds: Math.round(run.seconds * 100) / 100,
    eventsPerSecond: Math.round(run.recorded / run.seconds),
    recorded: run.recorded,
    errors: run.errors,
    firstError: run.firstError ?? null,
    batchMs: stats(batchMs),
    sendLateMaxMs: Math.round(run.lateMs),
    fromAnswerMs: {
      pointsAwarded: delays((watch) => watch.awardedAt),
      rankChanged: delays((watch) => watch.rankAt),
    },
    drainMs: Math.round(lastAt - run.startedAt),
    missing: watches.filter((watch) => watch.awardedAt === 0 || watch.rankAt === 0).length,
    missingPointsAwarded: watches.filter((watch) => watch.awardedAt === 0).length,
    missingRankChanged: watches.filter((watch) => watch.rankAt === 0).length,
    duplicated: watches.filter((watch) => watch.awarded > 1 || watch.ranked > 1).length,
    outOfOrder: watches.reduce((sum, watch) => sum + watch.outOfOrder, 0),
  };
}
