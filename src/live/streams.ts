import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { eventsAfter, hasEvent, type OutboxEvent } from '../../db/queries/events.js';
import { leaderboardPage, type RankedEntry } from '../../db/queries/leaderboard.js';
import type { Database } from '../../db/schema.js';
import { teamKey } from '../../db/team-key.js';
import { AppError } from '../app-error.js';
import { abortReason, type LiveHub, type StreamInbox } from './hub.js';

/** Events read from the outbox per query while replaying. */
export const REPLAY_BATCH = 500;
/** A leaderboard stream sends at most one message per this long. */
export const BOARD_MIN_INTERVAL_MS = 1_000;
/** A board is read again after this long without events (names, deletions, team moves). */
const BOARD_REFRESH_MS = 30_000;
/** The most entries a leaderboard stream can ask for. */
export const BOARD_MAX_TOP = 100;
/** Boards whose top (up to BOARD_MAX_TOP entries) an instance keeps: the most recently read. */
export const BOARD_CACHE_MAX = 256;

export type UserStreamItem = { kind: 'event'; event: OutboxEvent } | { kind: 'resync'; id: string };

export interface StreamOptions {
  userId: string;
  /** The token's `exp` in epoch ms: the stream ends then. */
  expiresAtMs: number;
  /** Closes the connection of a stream dropped for being slow. */
  onDropped: () => void;
  /** Aborted when the client goes away: the stream ends even while it waits. */
  signal: AbortSignal | undefined;
}

/** Opens the inbox and ends it when `signal` aborts (a generator blocked on it would never see `return()`). */
function openInbox(hub: LiveHub, kind: 'user' | 'board', options: StreamOptions): StreamInbox {
  const inbox = hub.open(options.userId, kind, options.onDropped);
  const { signal } = options;
  const onAbort = () => inbox.end(abortReason('The client went away'));
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  return inbox;
}

function expired(): AppError {
  return new AppError(
    'UNAUTHENTICATED',
    'The token expired: subscribe again with a fresh token (and lastEventId to resume)',
  );
}

/**
 * The signed-in user's events: with `lastEventId`, first every retained event
 * after it (from the outbox), then live ones as they commit, with no gap and
 * no repeat: the inbox is registered before the outbox is read, and live
 * copies of replayed events are skipped (also those queued while the replay
 * ran: the inbox drops them as they leave the queue). An id the outbox no
 * longer holds (or never held for this user) yields a `resync` carrying the
 * user's newest id (`0` when none): the client reloads its state and
 * continues from there; nothing up to that id follows. `0` means "everything
 * retained". Without `lastEventId`, the events that commit after the stream
 * opened (the user's newest id is read once the inbox is registered).
 */
export async function* userEvents(
  hub: LiveHub,
  db: Kysely<Database>,
  options: StreamOptions & { lastEventId: string | undefined },
): AsyncGenerator<UserStreamItem> {
  const inbox = openInbox(hub, 'user', options);
  try {
    const { lastEventId, userId } = options;
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
        const newest = await latestId(db, userId);
        inbox.delivered(newest);
        yield { kind: 'resync', id: newest };
      }
    } else {
      // From now on: an event that committed before the stream opened, but
      // whose notification reaches this instance after it did, is not news.
      inbox.delivered(await latestId(db, userId));
    }
    for (;;) {
      if (Date.now() >= options.expiresAtMs) throw expired();
      const event = await inbox.next(options.expiresAtMs);
      if (event) yield { kind: 'event', event };
    }
  } finally {
    inbox.close();
  }
}

async function latestId(db: Kysely<Database>, userId: string): Promise<string> {
  const row = await db
    .selectFrom('liveEvents')
    .select('id')
    .where('userId', '=', userId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? '0';
}

interface BoardSnapshot {
  /** The hub's event count when read: newer events mean it may be stale. */
  generation: number;
  readAt: number;
  entries: RankedEntry[];
}

/**
 * The top of each board, read at most once per second and shared by every
 * stream of that board on this instance, so N subscribers cost one query.
 * Team boards are keyed by teamKey(), as the board filter matches fans, so
 * "Arsenal" and "ARSENAL" share one read. At most `maxBoards` tops are kept,
 * the least recently read dropped first: a stream of a dropped board just
 * reads it again.
 */
export class BoardCache {
  readonly #boards: LRUCache<string, Promise<BoardSnapshot>>;
  #generation = 0;

  constructor(
    private readonly db: Kysely<Database>,
    maxBoards = BOARD_CACHE_MAX,
  ) {
    this.#boards = new LRUCache({ max: maxBoards });
  }

  /** How many boards' tops are held. */
  get size(): number {
    return this.#boards.size;
  }

  /** Every committed event may move any board. */
  changed(): void {
    this.#generation += 1;
  }

  get generation(): number {
    return this.#generation;
  }

  async top(team: string | undefined): Promise<BoardSnapshot> {
    const key = team === undefined ? '' : `team:${teamKey(team)}`;
    const cached = this.#boards.get(key);
    if (cached) {
      const snapshot = await cached;
      const age = Date.now() - snapshot.readAt;
      const fresh = snapshot.generation === this.#generation && age < BOARD_REFRESH_MS;
      if (fresh || age < BOARD_MIN_INTERVAL_MS) return snapshot;
      if (this.#boards.peek(key) !== cached) return this.top(team);
    }
    const generation = this.#generation;
    const reading = leaderboardPage(this.db, { limit: BOARD_MAX_TOP, team }).then((entries) => ({
      generation,
      readAt: Date.now(),
      entries,
    }));
    this.#boards.set(key, reading);
    reading.catch(() => {
      if (this.#boards.peek(key) === reading) this.#boards.delete(key);
    });
    return reading;
  }
}

/**
 * The top `top` entries of a board (the whole board, or `team`'s fans)
 * whenever they change, at most one message per second; the first message is
 * the current top. Wakes on every committed event; also re-reads every 30 s,
 * which picks up changes that announce no event (a renamed user, a deleted
 * account).
 */
export async function* boardEvents(
  hub: LiveHub,
  cache: BoardCache,
  options: StreamOptions & { team: string | undefined; top: number },
): AsyncGenerator<RankedEntry[]> {
  const inbox = openInbox(hub, 'board', options);
  try {
    let sent: string | undefined;
    let seen = -1;
    for (;;) {
      // Up to date: sleep until an event (or the 30 s refresh, or the token's expiry).
      if (seen === cache.generation) {
        await waitUntil(inbox, Math.min(Date.now() + BOARD_REFRESH_MS, options.expiresAtMs), true);
      }
      if (Date.now() >= options.expiresAtMs) throw expired();
      const snapshot = await cache.top(options.team);
      seen = snapshot.generation;
      const entries = snapshot.entries.slice(0, options.top);
      const json = JSON.stringify(entries);
      const changed = json !== sent;
      if (changed) {
        sent = json;
        yield entries;
      }
      // After a message, or when the shared read predates the newest events,
      // wait out the second before reading again.
      if (changed || seen !== cache.generation) {
        await waitUntil(inbox, Math.min(Date.now() + BOARD_MIN_INTERVAL_MS, options.expiresAtMs));
      }
    }
  } finally {
    inbox.close();
  }
}

/** Sleeps until `at` (epoch ms); with `orPoke`, returns earlier when an event arrives. */
async function waitUntil(inbox: StreamInbox, at: number, orPoke = false): Promise<void> {
  while (Date.now() < at) {
    await inbox.next(at);
    if (orPoke) return;
  }
}
