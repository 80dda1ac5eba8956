import { describe, expect, it } from 'vitest';
import type { BatchAnswer, EventInput } from '../../bench/events-post.js';
import {
  BURST_BATCH,
  BURST_EVENT_TYPE,
  burstDeliveries,
  runBurst,
  watching,
  type Writer,
} from '../../bench/live-writes.js';

/**
 * The match-day burst of `npm run bench:live -- --burst` (bench/live-writes.ts)
 * without a service: what a fan's stream counts as its award and its rank
 * move, and how the batches are cut, paced and answered.
 */

const fan = (i: number): Writer => ({
  commitSentAt: 0,
  committedAt: 0,
  subject: `fan-${i}`,
  eventId: `live-burst-${i}`,
});

const message = (id: number, type: string, data: object) =>
  JSON.stringify({ id: String(id), type, timestamp: '', userId: 'u', data });
const awarded = (id: number, eventId: string) =>
  message(id, 'points_awarded', {
    delta: 25,
    balance: 150,
    questId: null,
    source: { kind: 'event', type: BURST_EVENT_TYPE, clientId: 'c', eventId },
  });
const ranked = (id: number, board: 'global' | 'team') =>
  message(id, 'rank_changed', { board, team: null, rank: 2, previousRank: 9 });

describe("a burst fan's stream", () => {
  it("counts the fan's own event's points_awarded and the global rank_changed, once each", () => {
    const { watch, onEvent } = watching(fan(7));
    onEvent(awarded(10, 'live-burst-70'));
    onEvent(awarded(11, 'live-burst-7'));
    onEvent(ranked(12, 'team'));
    onEvent(ranked(13, 'global'));
    expect(watch).toMatchObject({ awarded: 1, ranked: 1, outOfOrder: 0, seen: 0 });
    expect(watch.awardedAt).toBeGreaterThan(0);
    expect(watch.rankAt).toBeGreaterThanOrEqual(watch.awardedAt);
  });

  it('reports a message twice and ids that go back', () => {
    const { watch, onEvent } = watching(fan(1));
    onEvent(awarded(20, 'live-burst-1'));
    onEvent(ranked(21, 'global'));
    onEvent(ranked(21, 'global'));
    expect(watch).toMatchObject({ awarded: 1, ranked: 2, outOfOrder: 1 });
  });
});

describe('the burst', () => {
  it('sends batches of 100 paced over the seconds, to the instance send picks, and times every fan', async () => {
    const writers = Array.from({ length: 250 }, (_, i) => fan(i));
    const sent: Array<{ k: number; events: EventInput[]; at: number }> = [];
    const run = await runBurst(writers, { seconds: 0.3, senders: 2 }, (events, k) => {
      sent.push({ k, events, at: performance.now() });
      const answer: BatchAnswer =
        k === 2
          ? { ms: undefined, error: 'TypeError: fetch failed ← Error: connect ECONNREFUSED' }
          : { ms: 5, results: events.map(() => ({ status: 'recorded' })) };
      return { instance: `instance ${k % 2}`, answer: Promise.resolve(answer) };
    });
    expect(sent.map((batch) => batch.events.length)).toEqual([BURST_BATCH, BURST_BATCH, 50]);
    expect(sent[0]!.events[0]).toEqual({
      id: 'live-burst-0',
      subject: 'fan-0',
      type: BURST_EVENT_TYPE,
    });
    // Batch k is due k × 100 ms after the first.
    expect(sent[2]!.at - sent[0]!.at).toBeGreaterThanOrEqual(195);
    expect(run).toMatchObject({ batches: 3, recorded: 200, errors: 50 });
    expect(run.firstError).toBe(
      'batch 2 on instance 0: TypeError: fetch failed ← Error: connect ECONNREFUSED',
    );
    for (const writer of writers) expect(writer.committedAt).toBeGreaterThan(0);

    // Every fan but the last had both messages; the last had no rank move.
    const watches = writers.map((writer, i) => {
      const { watch, onEvent } = watching(writer);
      onEvent(awarded(1000 + 2 * i, writer.eventId!));
      if (i < writers.length - 1) onEvent(ranked(1001 + 2 * i, 'global'));
      return watch;
    });
    const burst = burstDeliveries(watches, run, { seconds: 0.3, senders: 2 });
    expect(burst).toMatchObject({
      events: 250,
      batches: 3,
      recorded: 200,
      errors: 50,
      missing: 1,
      missingPointsAwarded: 0,
      missingRankChanged: 1,
      duplicated: 0,
      outOfOrder: 0,
    });
    expect(burst.drainMs).toBeGreaterThanOrEqual(200);
  });
});
