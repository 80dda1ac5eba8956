import { describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../../db/queries/events.js';
import { MAX_WAIT_MS, StreamInbox, waitMs } from '../../src/live/inbox.js';

/**
 * One stream's inbox without a database: what reaches the reader, and how
 * long it sleeps. The replay race over a real outbox is in
 * test/platform/live/live.test.ts ("resume").
 */
function inbox(): StreamInbox {
  return new StreamInbox(
    'u',
    'user',
    10,
    () => {},
    () => {},
  );
}

function event(id: string): OutboxEvent {
  return { id, userId: 'u', type: 'points_awarded', payload: {}, createdAt: new Date() };
}

describe('StreamInbox', () => {
  it('hands out live events once each, in order', async () => {
    const box = inbox();
    for (const id of ['1', '2', '2', '1', '3']) box.push(event(id));
    const ids: Array<string | undefined> = [];
    for (let i = 0; i < 3; i += 1) ids.push((await box.next())?.id);
    expect(ids).toEqual(['1', '2', '3']);
  });

  it('drops a queued event the replay delivered since', async () => {
    const box = inbox();
    // Events 10 and 11 commit while the replay runs: the hub queues them...
    box.push(event('10'));
    box.push(event('11'));
    // ...and the replay, still reading the outbox, finds and delivers 10.
    box.delivered('10');
    box.push(event('12'));
    expect((await box.next())?.id).toBe('11');
    expect((await box.next())?.id).toBe('12');
  });

  it('drops queued events at or below a resync id', async () => {
    const box = inbox();
    box.push(event('5'));
    box.push(event('6'));
    box.delivered('6'); // resync: the client reloads its state as of event 6
    box.push(event('7'));
    expect((await box.next())?.id).toBe('7');
  });
});

describe('waiting', () => {
  it('sleeps until the deadline, at most MAX_WAIT_MS', () => {
    const now = Date.now();
    expect(waitMs(now + 500, now)).toBe(500);
    expect(waitMs(now - 500, now)).toBe(0);
    // A token from `npm run token -- alice --ttl 3000000` (~35 days): past setTimeout's 2³¹ ms.
    expect(waitMs(now + 3_000_000_000, now)).toBe(MAX_WAIT_MS);
    expect(MAX_WAIT_MS).toBeLessThan(2 ** 31);
  });

  it('a far deadline does not wake the reader at once', async () => {
    const box = inbox();
    let woke = false;
    const next = box.next(Date.now() + 3_000_000_000).then(
      () => (woke = true),
      () => undefined,
    );
    // setTimeout clamps a delay over 2³¹ - 1 ms to 1 ms: uncapped, this wakes (and spins) at once.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(woke).toBe(false);
    box.end(new Error('done'), 'client closed');
    await next;
  });
});
