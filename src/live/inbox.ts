import { compareIds, type OutboxEvent } from '../../db/queries/events.js';

/**
 * Why a stream ended, as its closing log line says (src/live/streams.ts):
 * `cap` is a stream refused at a limit, `slow reader` one dropped for falling
 * LIVE_STREAM_QUEUE events behind, `notifications lost` the listening
 * connection's reconnect, `error` anything else that ended it.
 */
export type StreamEndReason =
  | 'client closed'
  | 'account deleted'
  | 'token expired'
  | 'cap'
  | 'slow reader'
  | 'server shutdown'
  | 'notifications lost'
  | 'error';

/**
 * Ends a stream whose client is gone (or is being cut off): tRPC ends such a
 * stream quietly instead of trying to send an error nobody can read.
 */
export function abortReason(message: string): Error {
  return new DOMException(message, 'AbortError');
}

/**
 * The longest one `next()` sleeps before returning empty-handed. Its callers
 * loop and check their deadline again, so a far deadline (a token valid for
 * weeks) costs a wake-up a minute; setTimeout itself cannot wait past 2³¹ ms
 * (~24.8 days) and would fire after 1 ms instead, over and over.
 */
export const MAX_WAIT_MS = 60_000;

/** How long `next(wakeAt)` sleeps at `now`: until `wakeAt`, at most MAX_WAIT_MS. */
export function waitMs(wakeAt: number, now: number): number {
  return Math.min(Math.max(0, wakeAt - now), MAX_WAIT_MS);
}

/**
 * One open stream's inbox. Events are pushed by the hub in per-user commit
 * order; the stream's reader takes them with `next()`. The queue is bounded:
 * a reader that falls `maxQueue` events behind is dropped (its queue freed,
 * its connection closed), never buffered without bound.
 */
export class StreamInbox {
  readonly #queue: OutboxEvent[] = [];
  #waiter: (() => void) | undefined;
  #ended: Error | undefined;
  /** Why the hub (or the client's going away) ended the stream, once it did. */
  endReason: StreamEndReason | undefined;
  /** Set once the stream's end was handled (src/live/streams.ts logs it once). */
  finished = false;
  /** The newest id queued or delivered: older ones pushed again are not queued. */
  #lastId: string | undefined;
  /**
   * The newest id the reader has had (replayed, resynced to, or taken from the
   * queue): queued events at or below it are duplicates of the replay and are
   * dropped as they leave the queue.
   */
  #deliveredId: string | undefined;

  constructor(
    readonly userId: string,
    readonly kind: 'user' | 'board',
    private readonly maxQueue: number,
    private readonly onClose: (inbox: StreamInbox) => void,
    /** Told when the inbox is dropped for being slow, so the connection can be closed. */
    readonly onDropped: () => void,
  ) {}

  /**
   * Marks every event up to `id` as delivered (replayed from the outbox, or
   * skipped by a resync): live copies of them, queued or still to come, are
   * skipped.
   */
  delivered(id: string): void {
    if (this.#lastId === undefined || compareIds(id, this.#lastId) > 0) this.#lastId = id;
    if (this.#deliveredId === undefined || compareIds(id, this.#deliveredId) > 0) {
      this.#deliveredId = id;
    }
  }

  push(event: OutboxEvent): void {
    if (this.#ended) return;
    if (this.#lastId !== undefined && compareIds(event.id, this.#lastId) <= 0) return;
    if (this.#queue.length >= this.maxQueue) {
      // Its socket is full, so no error message could reach it: cut it off;
      // the client reconnects with its last event id.
      this.end(
        abortReason(`The stream fell ${this.maxQueue} events behind and was dropped`),
        'slow reader',
      );
      this.onDropped();
      return;
    }
    this.#lastId = event.id;
    this.#queue.push(event);
    this.#wake();
  }

  /** Wakes the reader without an event (a board stream's "something changed"). */
  poke(): void {
    this.#wake();
  }

  /** Ends the stream: the reader's next `next()` throws `error`. */
  end(error: Error, reason: StreamEndReason): void {
    if (this.#ended) return;
    this.#ended = error;
    this.endReason = reason;
    this.#queue.length = 0;
    this.close();
    this.#wake();
  }

  /**
   * The next event, or undefined when poked, when `wakeAt` (epoch ms) passes,
   * or after MAX_WAIT_MS of waiting (callers check their deadline and call again).
   */
  async next(wakeAt?: number): Promise<OutboxEvent | undefined> {
    if (this.#ended) throw this.#ended;
    const queued = this.#take();
    if (queued) return queued;
    await new Promise<void>((resolve) => {
      const timer =
        wakeAt === undefined ? undefined : setTimeout(resolve, waitMs(wakeAt, Date.now()));
      this.#waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#waiter = undefined;
    if (this.#ended) throw this.#ended;
    return this.#take();
  }

  /** Unregisters the inbox from the hub. Safe to call more than once. */
  close(): void {
    this.onClose(this);
  }

  /**
   * The oldest queued event the reader has not had yet: an event queued while
   * the replay ran may have been replayed since, and is dropped here.
   */
  #take(): OutboxEvent | undefined {
    let event: OutboxEvent | undefined;
    while ((event = this.#queue.shift())) {
      if (this.#deliveredId === undefined || compareIds(event.id, this.#deliveredId) > 0) {
        this.#deliveredId = event.id;
        return event;
      }
    }
    return undefined;
  }

  #wake(): void {
    this.#waiter?.();
  }
}
