import type { DatabaseHandle } from '../../db/database.js';
import {
  LIVE_CHANNEL,
  notifiedEvents,
  type OutboxEvent,
  type OutboxNotification,
} from '../../db/queries/events.js';
import type { Unlisten } from '../../db/listener.js';
import { AppError } from '../app-error.js';
import type { Logger } from '../logger.js';
import { metrics } from '../metrics.js';
import { STREAM_HEAP_BYTES, type StreamTransport } from './capacity.js';
import { StreamInbox, type StreamEndReason } from './inbox.js';

export interface HubLimits {
  /** Open streams per instance (LIVE_MAX_STREAMS; unset: as many WebSocket streams as the heap holds). */
  maxStreams: number;
  /**
   * The heap the open streams may take together, each its transport's
   * STREAM_HEAP_BYTES (src/live/capacity.ts); Infinity when LIVE_MAX_STREAMS
   * is set (the operator's count is the limit).
   */
  heapBudget: number;
  /** Open streams per user per instance (LIVE_MAX_STREAMS_PER_USER). */
  maxStreamsPerUser: number;
  /** Open streams per client address per instance (LIVE_MAX_STREAMS_PER_IP); 0: no limit. */
  maxStreamsPerIp: number;
  /** Events waiting for one slow stream before it is dropped (LIVE_STREAM_QUEUE). */
  maxQueue: number;
}

/** The subscription (routers/live.ts) each kind of stream serves, as the metrics name it. */
const STREAM_PROCEDURES = { user: 'myEvents', board: 'leaderboardEvents' } as const;

/**
 * The instance's fan-out. ONE listening connection per instance receives
 * every committed write's notification (LISTEN/NOTIFY on PostgreSQL, the
 * embedded session's own on PGlite) and hands each event to the open streams
 * of its user. The outbox is the source for replay; the hub only carries what
 * commits from now on. It also counts the open streams against the limits
 * (docs/LIVE.md, Capacity), and ends the streams of an account deleted on
 * any instance.
 */
export class LiveHub {
  readonly #byUser = new Map<string, Set<StreamInbox>>();
  readonly #byIp = new Map<string, number>();
  readonly #eventListeners = new Set<(userId: string, events: OutboxEvent[]) => void>();
  readonly #deletionListeners = new Set<(userId: string) => void>();
  readonly #lostListeners = new Set<() => void>();
  readonly #closeListeners = new Set<() => void>();
  #open = 0;
  /** The heap the open streams take, by their transports' STREAM_HEAP_BYTES. */
  #charged = 0;
  #unlisten: Unlisten | undefined;
  #closed = false;
  /** Notifications are handled one at a time, in the order they arrived. */
  #chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: DatabaseHandle,
    private readonly limits: HubLimits,
    private readonly logger: Logger,
  ) {}

  /** Opens the listening connection. */
  async start(): Promise<void> {
    this.#unlisten = await this.database.listen(LIVE_CHANNEL, {
      onNotification: (payload) => {
        this.#chain = this.#chain.then(() => this.#dispatch(payload));
      },
      onReconnect: () => {
        this.logger.warn('live: listening connection restored; open streams catch up');
        // Notifications sent meanwhile are lost: every open stream ends with a
        // retryable error and its client resumes from its last event id, and
        // whoever keeps state derived from them starts over.
        this.#endAll(
          new AppError(
            'UNAVAILABLE',
            'The live connection was interrupted; resume with lastEventId',
            {
              retryAfterSeconds: 1,
            },
          ),
          'notifications lost',
        );
        for (const listener of this.#lostListeners) listener();
      },
      onError: (err) => this.logger.warn({ err }, 'live: listening connection lost'),
    });
  }

  /** Set once close() began: no stream opens any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Open streams on this instance. */
  get openStreams(): number {
    return this.#open;
  }

  /** Whether one more stream over `transport` fits in the instance's limits (the count and the heap). */
  hasRoom(transport: StreamTransport): boolean {
    return (
      this.#open < this.limits.maxStreams &&
      this.#charged + STREAM_HEAP_BYTES[transport] <= this.limits.heapBudget
    );
  }

  /** The limits streams are counted against. */
  get streamLimits(): Readonly<HubLimits> {
    return this.limits;
  }

  /**
   * Registers a stream of `userId` from `ip` over `transport` (kind `user`:
   * their events; `board`: woken by the board it watches). Throws
   * UNAVAILABLE over the instance's limit (its count, or the heap its
   * streams take, src/live/capacity.ts) or while shutting down (a client retries those
   * elsewhere), RATE_LIMITED over the per-user or per-IP limit (a client
   * stops: it holds its share already).
   */
  open(
    userId: string,
    kind: 'user' | 'board',
    ip: string | undefined,
    onDropped: () => void,
    transport: StreamTransport,
  ): StreamInbox {
    if (this.#closed) {
      throw new AppError('UNAVAILABLE', 'The server is shutting down; reconnect', {
        retryAfterSeconds: 1,
      });
    }
    const { maxStreams, maxStreamsPerUser, maxStreamsPerIp } = this.limits;
    if (!this.hasRoom(transport)) {
      throw new AppError(
        'UNAVAILABLE',
        this.#open >= maxStreams
          ? `This instance holds its limit of ${maxStreams} streams; retry shortly`
          : `This instance holds as many streams as its heap has room for (${this.#open}); retry shortly`,
        { retryAfterSeconds: 5 },
      );
    }
    const mine = this.#byUser.get(userId) ?? new Set<StreamInbox>();
    if (mine.size >= maxStreamsPerUser) {
      metrics.rateLimited('stream_user');
      throw new AppError(
        'RATE_LIMITED',
        `At most ${maxStreamsPerUser} open streams per user; close one first`,
        { retryAfterSeconds: 5 },
      );
    }
    const ipKey = maxStreamsPerIp > 0 ? ip : undefined;
    if (ipKey !== undefined && (this.#byIp.get(ipKey) ?? 0) >= maxStreamsPerIp) {
      metrics.rateLimited('stream_ip');
      throw new AppError(
        'RATE_LIMITED',
        `At most ${maxStreamsPerIp} open streams per client address; close one first`,
        { retryAfterSeconds: 5 },
      );
    }
    let registered = true;
    const counted = metrics.streamOpened(STREAM_PROCEDURES[kind]);
    const inbox = new StreamInbox(
      userId,
      kind,
      this.limits.maxQueue,
      (closing) => {
        if (!registered) return;
        registered = false;
        counted();
        this.#open -= 1;
        this.#charged -= STREAM_HEAP_BYTES[transport];
        const set = this.#byUser.get(userId);
        set?.delete(closing);
        if (set?.size === 0) this.#byUser.delete(userId);
        if (ipKey !== undefined) {
          const left = (this.#byIp.get(ipKey) ?? 1) - 1;
          if (left === 0) this.#byIp.delete(ipKey);
          else this.#byIp.set(ipKey, left);
        }
      },
      () => {
        this.logger.warn({ userId, queued: this.limits.maxQueue }, 'live: slow stream dropped');
        onDropped();
      },
    );
    mine.add(inbox);
    this.#byUser.set(userId, mine);
    if (ipKey !== undefined) this.#byIp.set(ipKey, (this.#byIp.get(ipKey) ?? 0) + 1);
    this.#open += 1;
    this.#charged += STREAM_HEAP_BYTES[transport];
    return inbox;
  }

  /** Told about every committed event (the webhook worker's and the boards' wake-up). */
  onEvents(listener: (userId: string, events: OutboxEvent[]) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** Told about every account deleted, on any instance, once it committed. */
  onAccountDeleted(listener: (userId: string) => void): () => void {
    this.#deletionListeners.add(listener);
    return () => this.#deletionListeners.delete(listener);
  }

  /**
   * Told when notifications may have been lost (the listening connection was
   * down): events and deletions in that time were not announced.
   */
  onNotificationsLost(listener: () => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  /** Told once the hub closed (shutdown), after it ended every stream: connections can close. */
  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Ends every stream with a retryable error (clients reconnect elsewhere) and stops listening. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#endAll(
      new AppError('UNAVAILABLE', 'The server is shutting down; reconnect with lastEventId', {
        retryAfterSeconds: 1,
      }),
      'server shutdown',
    );
    for (const listener of this.#closeListeners) listener();
    await this.#unlisten?.();
  }

  #endAll(error: Error, reason: StreamEndReason): void {
    for (const set of [...this.#byUser.values()]) {
      for (const inbox of [...set]) inbox.end(error, reason);
    }
  }

  async #dispatch(payload: string): Promise<void> {
    let byUser: Map<string, OutboxEvent[]>;
    try {
      const message = JSON.parse(payload) as OutboxNotification;
      if ('deleted' in message) {
        this.#accountDeleted(message.deleted);
        return;
      }
      byUser = await notifiedEvents(this.database.db, message, (userId) =>
        this.#byUser.has(userId),
      );
    } catch (err) {
      this.logger.error({ err }, 'live: a notification could not be handled');
      return;
    }
    for (const [userId, events] of byUser) {
      for (const inbox of this.#byUser.get(userId) ?? []) {
        if (inbox.kind === 'user') for (const event of events) inbox.push(event);
      }
      for (const listener of this.#eventListeners) listener(userId, events);
    }
  }

  /**
   * The account's streams end with it: NOT_FOUND is final for a tRPC client
   * (it stops and tells the app), where a retryable error would make it
   * reconnect, and reconnecting with the same token would sign up anew.
   */
  #accountDeleted(userId: string): void {
    const reason = new AppError('NOT_FOUND', 'The account was deleted');
    for (const inbox of [...(this.#byUser.get(userId) ?? [])]) inbox.end(reason, 'account deleted');
    for (const listener of this.#deletionListeners) listener(userId);
  }
}
