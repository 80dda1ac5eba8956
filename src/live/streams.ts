import type { Kysely } from 'kysely';
import { eventsAfter, hasEvent, newestEventOf, type OutboxEvent } from '../../db/queries/events.js';
import type { RankedEntry } from '../../db/queries/leaderboard.js';
import type { Database } from '../../db/schema.js';
import { AppError, UserGoneError } from '../app-error.js';
import { BOARD_MIN_INTERVAL_MS, sameEntries, type BoardWatch, type LiveBoards } from './boards.js';
import type { Logger } from '../logger.js';
import type { LiveHub } from './hub.js';
import type { StreamTransport } from './capacity.js';
import { abortReason, type StreamEndReason, type StreamInbox } from './inbox.js';

/** Events read from the outbox per query while replaying. */
export const REPLAY_BATCH = 500;

export type UserStreamItem = { kind: 'event'; event: OutboxEvent } | { kind: 'resync'; id: string };

export interface StreamOptions {
  /** The subscription's path (`myEvents`, `leaderboardEvents`), for the closing log line. */
  procedure: string;
  /** Where the stream's closing line goes (the request's logger). */
  logger: Logger;
  userId: string;
  /** The client's address, counted against the per-IP stream limit. */
  ip: string | undefined;
  /** The token's `exp` in epoch ms: the stream ends then. */
  expiresAtMs: number;
  /** Closes the connection of a stream dropped for being slow. */
  onDropped: () => void;
  /**
   * Bytes its connection holds unsent (a WebSocket's; 0 over SSE, written
   * only as fast as it drains): past LIVE_STREAM_QUEUE KiB the stream is
   * dropped as a slow reader.
   */
  unsentBytes?: () => number;
  /** Aborted when the client goes away: the stream ends even while it waits. */
  signal: AbortSignal | undefined;
  /** What carries it: its share of the heap's budget follows (src/live/capacity.ts). */
  transport: StreamTransport;
}

/**
 * Takes the stream's slot (the limits are checked here) and ends it when
 * `signal` aborts (a generator blocked on it would never see `return()`,
 * and one never started never runs its `finally`). A token that has expired
 * already opens nothing: its stream would end at once, and a client told so
 * would only be back with the same token. A refusal is logged as the
 * stream's end (`cap`, `token expired`, `server shutdown`).
 */
function openInbox(
  hub: LiveHub,
  kind: 'user' | 'board',
  options: StreamOptions,
  openedAt: number,
): StreamInbox {
  let inbox: StreamInbox;
  try {
    if (openedAt >= options.expiresAtMs) throw expired();
    inbox = hub.open(options.userId, kind, options.ip, options.onDropped, options.transport);
  } catch (error) {
    logEnd(options, endReasonOf(undefined, error, hub), openedAt);
    throw error;
  }
  const { signal } = options;
  const onAbort = () => inbox.end(abortReason('The client went away'), 'client closed');
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  return inbox;
}

/**
 * Why a stream ended: what the hub ended it for, else what its generator
 * threw (an expired token; anything else is an `error`), else its client
 * went away (tRPC returns the iterator when the response closes).
 */
function endReasonOf(
  inbox: StreamInbox | undefined,
  thrown: unknown,
  hub: LiveHub,
): StreamEndReason {
  if (inbox?.endReason) return inbox.endReason;
  if (thrown === undefined) return 'client closed';
  if (thrown instanceof AppError) {
    if (thrown.code === 'UNAUTHENTICATED') return 'token expired';
    if (thrown.code === 'NOT_FOUND') return 'account deleted';
    if (thrown.code === 'RATE_LIMITED') return 'cap';
    if (thrown.code === 'UNAVAILABLE') return hub.closed ? 'server shutdown' : 'cap';
  }
  return 'error';
}

/** The one line a stream leaves when it ends (or is refused). */
function logEnd(options: StreamOptions, reason: StreamEndReason, openedAt: number): void {
  options.logger.info(
    {
      procedure: options.procedure,
      userId: options.userId,
      reason,
      durationMs: Date.now() - openedAt,
    },
    'live stream closed',
  );
}

/** Closes a stream's inbox and logs why it ended (once: finishing again does nothing). */
function finish(
  hub: LiveHub,
  inbox: StreamInbox,
  options: StreamOptions,
  openedAt: number,
  thrown: unknown,
): void {
  if (inbox.finished) return;
  inbox.finished = true;
  inbox.close();
  logEnd(options, endReasonOf(inbox, thrown, hub), openedAt);
}

/** Unsent bytes a connection may hold per event of LIVE_STREAM_QUEUE before its stream is dropped. */
export const UNSENT_BYTES_PER_QUEUED_EVENT = 1024;

/**
 * Drops the stream (its connection closed, as for a full queue: the stream
 * ends with an AbortError, which tRPC ends quietly) when its
 * connection holds more than LIVE_STREAM_QUEUE KiB unsent: a WebSocket is
 * written without waiting for its socket, so a reader that stopped reading
 * shows there, not in the stream's queue.
 */
function dropIfBacklogged(hub: LiveHub, inbox: StreamInbox, options: StreamOptions): void {
  const unsent = options.unsentBytes?.() ?? 0;
  if (unsent <= hub.streamLimits.maxQueue * UNSENT_BYTES_PER_QUEUED_EVENT) return;
  const reason = abortReason(`The connection holds ${unsent} bytes unsent and was dropped`);
  inbox.end(reason, 'slow reader');
  inbox.onDropped();
  throw reason;
}

function expired(): AppError {
  return new AppError(
    'UNAUTHENTICATED',
    'The token expired: subscribe again with a fresh token (and lastEventId to resume)',
  );
}

/**
 * Opens a stream of the signed-in user's events: the slot is taken and the
 * user's newest event id read before the first message, so a refusal (the
 * limits, an expired token, an account deleted since its id was cached:
 * UserGoneError, which the protected procedure answers by resolving the
 * identity again) is the procedure's error, not the stream's.
 *
 * The stream: with `lastEventId`, first every retained event after it (from
 * the outbox), then live ones as they commit, with no gap and no repeat: the
 * inbox is registered before the outbox is read, and live copies of replayed
 * events are skipped (also those queued while the replay ran: the inbox
 * drops them as they leave the queue). An id the outbox no longer holds (or
 * never held for this user) yields a `resync` carrying the user's newest id
 * (`0` when none): the client reloads its state and continues from there;
 * nothing up to that id follows. `0` means "everything retained". Without
 * `lastEventId`, the events that commit after the stream opened (an event
 * up to the newest id read once the inbox is registered is not news).
 */
export async function openUserEvents(
  hub: LiveHub,
  db: Kysely<Database>,
  options: StreamOptions & { lastEventId: string | undefined },
): Promise<AsyncGenerator<UserStreamItem>> {
  const openedAt = Date.now();
  const inbox = openInbox(hub, 'user', options, openedAt);
  let newest: string | undefined;
  try {
    newest = await newestEventOf(db, options.userId);
    if (newest === undefined) throw new UserGoneError();
  } catch (error) {
    finish(hub, inbox, options, openedAt, error);
    throw error;
  }
  if (options.lastEventId === undefined) inbox.delivered(newest);
  return userEvents(hub, inbox, db, options, newest, openedAt);
}

async function* userEvents(
  hub: LiveHub,
  inbox: StreamInbox,
  db: Kysely<Database>,
  options: StreamOptions & { lastEventId: string | undefined },
  newest: string,
  openedAt: number,
): AsyncGenerator<UserStreamItem> {
  const { userId, lastEventId, expiresAtMs } = options;
  let thrown: unknown;
  try {
    if (lastEventId !== undefined) {
      if (lastEventId === '0' || (await hasEvent(db, userId, lastEventId))) {
        let after = lastEventId;
        for (;;) {
          const batch = await eventsAfter(db, userId, after, REPLAY_BATCH);
          for (const event of batch) {
            inbox.delivered(event.id);
            yield { kind: 'event', event };
            after = event.id;
          }
          if (batch.length < REPLAY_BATCH) break;
        }
      } else {
        inbox.delivered(newest);
        yield { kind: 'resync', id: newest };
      }
    }
    for (;;) {
      if (Date.now() >= expiresAtMs) throw expired();
      const event = await inbox.next(expiresAtMs);
      if (event) {
        dropIfBacklogged(hub, inbox, options);
        yield { kind: 'event', event };
      }
    }
  } catch (error) {
    thrown = error;
    throw error;
  } finally {
    finish(hub, inbox, options, openedAt, thrown);
  }
}

/**
 * Opens a stream of the top `top` entries of a board (the whole board, or
 * `team`'s fans): the first message is the current top, then the new top
 * whenever it changes, at most one message per second. The top is shared by
 * every stream of the board on this instance (LiveBoards).
 */
export async function openBoardEvents(
  hub: LiveHub,
  boards: LiveBoards,
  options: StreamOptions & { team: string | undefined; top: number },
): Promise<AsyncGenerator<RankedEntry[]>> {
  const openedAt = Date.now();
  const inbox = openInbox(hub, 'board', options, openedAt);
  let watch: BoardWatch;
  try {
    watch = await boards.watch(options.team, options.top, inbox);
  } catch (error) {
    finish(hub, inbox, options, openedAt, error);
    throw error;
  }
  return boardEvents(hub, inbox, watch, options, openedAt);
}

async function* boardEvents(
  hub: LiveHub,
  inbox: StreamInbox,
  watch: BoardWatch,
  options: StreamOptions,
  openedAt: number,
): AsyncGenerator<RankedEntry[]> {
  const { expiresAtMs } = options;
  let thrown: unknown;
  try {
    let sent: RankedEntry[] | undefined;
    let sentAt = 0;
    for (;;) {
      const top = watch.top();
      if (sent === undefined || !sameEntries(sent, top)) {
        const due = sentAt + BOARD_MIN_INTERVAL_MS;
        if (Date.now() < due) {
          // Sent less than a second ago: wait it out, then send the top as it is then.
          await waitUntil(inbox, Math.min(due, expiresAtMs));
        } else {
          dropIfBacklogged(hub, inbox, options);
          sent = top;
          sentAt = Date.now();
          yield top;
        }
      } else {
        await inbox.next(expiresAtMs);
      }
      if (Date.now() >= expiresAtMs) throw expired();
    }
  } catch (error) {
    thrown = error;
    throw error;
  } finally {
    watch.close();
    finish(hub, inbox, options, openedAt, thrown);
  }
}

/** Sleeps until `at` (epoch ms), through pokes. */
async function waitUntil(inbox: StreamInbox, at: number): Promise<void> {
  while (Date.now() < at) await inbox.next(at);
}
