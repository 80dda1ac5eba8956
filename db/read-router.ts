import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { isDatabaseUnavailable } from './queries/errors.js';
import { walInsertPosition, walReplayPosition } from './queries/replication.js';
import type { Database } from './schema.js';

export interface ReadRouterOptions {
  primary: Kysely<Database>;
  /** A streaming replica of `primary` (DATABASE_READ_URL); none: every read is the primary's. */
  replica?: Kysely<Database> | undefined;
  /** Reads go to the primary while the replica may be staler than this (DATABASE_READ_MAX_LAG_MS). */
  maxLagMs: number;
  /** How long a fan's read of their own data waits for the replica to replay their write (DATABASE_READ_WAIT_MS). */
  waitMs: number;
  /** How often the replica's position is compared with the primary's (DATABASE_READ_POLL_MS). */
  pollMs: number;
  /** Fans whose last write this instance remembers (see `wrote`). */
  writers?: number;
  /** Told when the replica stops or starts serving reads, and why. */
  onChange?: (change: { serving: boolean; reason: string; error?: unknown }) => void;
  /** Milliseconds, for tests; performance.now() by default. */
  now?: () => number;
}

/** Fans whose last write's position each instance remembers by default (about 100 bytes each). */
export const READ_ROUTER_WRITERS = 10_000;
/** Between two reads of the replica's position while a fan's read waits for it. */
const CATCH_UP_POLL_MS = 2;
/** A primary position is kept this long for measuring the lag (then the lag is "over the bound"). */
const SAMPLE_HORIZON_FACTOR = 4;

/**
 * The one place that decides which database a read uses (docs/SCALING.md,
 * Read replica). Without a replica, every read is the primary's.
 *
 * - `shared`: a read that may lag (boards, seasons, other fans): the replica
 *   while it is known to be at most `maxLagMs` behind, else the primary.
 * - `own(userId)`: a fan's read of their own data. After `wrote(userId)`
 *   (every fan write on this instance) it waits up to `waitMs` for the
 *   replica to replay past the position the primary's WAL had reached once
 *   the write committed, else reads the primary. A fan this instance has
 *   forgotten (more than `writers` wrote since) is held to the newest
 *   position forgotten, so forgetting never makes a read staler.
 * - A read that fails on the replica because it cannot serve it (connection
 *   lost, shutting down, a conflict with recovery, read-only) runs again on
 *   the primary, and the replica serves nothing until the next poll finds it
 *   answering: stopping the replica costs no request an error.
 *
 * The lag is measured, not taken from the replica's clock: every `pollMs`
 * the primary's WAL position is sampled with its time, then the replica's
 * replay position; the replica holds everything the primary had at the
 * newest sample it has passed, so it is at most `now − that sample's time`
 * behind (`lagSeconds`). An idle primary and a caught-up replica give 0;
 * under steady writes the figure is at most about one poll.
 */
export class ReadRouter {
  readonly #primary: Kysely<Database>;
  readonly #replica: Kysely<Database> | undefined;
  readonly #maxLagMs: number;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #now: () => number;
  readonly #onChange: ReadRouterOptions['onChange'];
  /** Each remembered writer's position after their last write (undefined: it could not be read). */
  readonly #writers: LRUCache<string, Promise<bigint | undefined>>;
  /** The newest position of a forgotten writer. */
  #floor: Promise<bigint> = Promise.resolve(0n);
  /** The primary's positions, oldest first, with when they were read. */
  #samples: { at: number; lsn: bigint }[] = [];
  /** The replica's last known replay position; undefined while it is not serving. */
  #replay: bigint | undefined;
  /** The time of the newest primary sample the replica has passed. */
  #freshAsOf: number | undefined;
  #serving = false;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  /** One position read in flight, and one queued behind it (see `#position`). */
  #positionInFlight: Promise<bigint | undefined> | undefined;
  #positionQueued: Promise<bigint | undefined> | undefined;
  /** Reads waiting for the replica to reach a position. */
  readonly #waiters = new Set<{ lsn: bigint; done: (reached: boolean) => void }>();
  #catchingUp = false;

  constructor(options: ReadRouterOptions) {
    this.#primary = options.primary;
    this.#replica = options.replica;
    this.#maxLagMs = options.maxLagMs;
    this.#waitMs = options.waitMs;
    this.#pollMs = options.pollMs;
    this.#now = options.now ?? (() => performance.now());
    this.#onChange = options.onChange;
    this.#writers = new LRUCache({
      max: options.writers ?? READ_ROUTER_WRITERS,
      dispose: (position, _userId, reason) => {
        if (reason !== 'evict') return;
        const floor = this.#floor;
        this.#floor = Promise.all([floor, position]).then(([a, b]) =>
          b !== undefined && b > a ? b : a,
        );
      },
    });
  }

  /** Whether a replica is configured at all. */
  get hasReplica(): boolean {
    return this.#replica !== undefined;
  }

  /** Whether reads may go to the replica now: it answers and is within the lag bound. */
  get replicaServing(): boolean {
    if (!this.#serving || this.#freshAsOf === undefined) return false;
    return this.#now() - this.#freshAsOf <= this.#maxLagMs;
  }

  /**
   * How far behind the primary the replica is, in seconds, as of the last
   * poll (an upper bound, see the class comment); grows while the replica
   * does not answer. Null without a replica or before it first answered.
   */
  lagSeconds(): number | null {
    if (this.#replica === undefined || this.#freshAsOf === undefined) return null;
    return Math.max(0, this.#now() - this.#freshAsOf) / 1000;
  }

  /** Starts measuring the replica's lag (no-op without a replica). */
  async start(): Promise<void> {
    if (this.#replica === undefined || this.#timer !== undefined || this.#stopped) return;
    await this.#tick();
    this.#timer = setInterval(() => void this.refresh(), this.#pollMs);
    this.#timer.unref();
  }

  /** Measures the lag now, as a poll does (a poll in progress is awaited, not repeated). */
  async refresh(): Promise<void> {
    if (this.#replica === undefined || this.#stopped) return;
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    await this.#ticking;
  }

  /** Stops polling; reads from now on use the primary. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#setServing(false, 'stopped');
    await this.#ticking;
  }

  /** A read that may lag by up to the bound: boards, seasons, other fans' public data. */
  shared<T>(read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.replicaServing ? this.#onReplica(read) : read(this.#primary);
  }

  /** A read of `userId`'s own data: it sees every write of theirs this instance served. */
  async own<T>(userId: string, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    if (!this.replicaServing) return read(this.#primary);
    const position = await (this.#writers.get(userId) ?? this.#floor);
    if (position === undefined || !(await this.#reached(position))) return read(this.#primary);
    return this.#onReplica(read);
  }

  /**
   * `userId` has just written (its transaction committed): their next reads
   * wait for the replica to replay it. Call it after the commit; it costs
   * the request nothing (the position is read in the background, one read
   * for all the writes that committed before it was sent).
   */
  wrote(userId: string): void {
    if (this.#replica === undefined || this.#stopped) return;
    this.#writers.set(userId, this.#position());
  }

  /**
   * The primary's WAL position, read after this call: at most one read in
   * flight, and every caller arriving meanwhile shares the next one (the
   * read in flight may have been sent before their commit).
   */
  #position(): Promise<bigint | undefined> {
    if (this.#positionInFlight === undefined) {
      const read = walInsertPosition(this.#primary).catch(() => undefined);
      this.#positionInFlight = read.finally(() => (this.#positionInFlight = undefined));
      return this.#positionInFlight;
    }
    this.#positionQueued ??= this.#positionInFlight.then(() => {
      this.#positionQueued = undefined;
      return this.#position();
    });
    return this.#positionQueued;
  }

  /** Whether the replica reaches `lsn` within the wait bound. */
  #reached(lsn: bigint): Promise<boolean> | boolean {
    if (this.#replay !== undefined && this.#replay >= lsn) return true;
    if (this.#waitMs === 0) return false;
    return new Promise<boolean>((resolve) => {
      const waiter = {
        lsn,
        done: (reached: boolean) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => waiter.done(false), this.#waitMs);
      this.#waiters.add(waiter);
      void this.#catchUp();
    });
  }

  /** Reads the replica's position back to back while reads wait for it. */
  async #catchUp(): Promise<void> {
    if (this.#catchingUp) return;
    this.#catchingUp = true;
    try {
      while (this.#waiters.size > 0 && this.#serving) {
        try {
          const replay = await walReplayPosition(this.#replica!);
          if (replay === null)
            throw new Error('DATABASE_READ_URL is not in recovery (not a replica)');
          this.#observeReplay(replay);
        } catch (error) {
          this.#setServing(false, 'the replica did not answer', error);
          break;
        }
        if (this.#waiters.size > 0) await sleep(CATCH_UP_POLL_MS);
      }
    } finally {
      this.#catchingUp = false;
      if (!this.#serving) for (const waiter of [...this.#waiters]) waiter.done(false);
    }
  }

  #observeReplay(replay: bigint): void {
    this.#replay = replay;
    for (const waiter of [...this.#waiters]) if (replay >= waiter.lsn) waiter.done(true);
  }

  /** One poll: the primary's position, then the replica's. */
  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const at = this.#now();
    try {
      this.#samples.push({ at, lsn: await walInsertPosition(this.#primary) });
    } catch {
      return; // the primary does not answer: nothing to compare with
    }
    const horizon = at - Math.max(this.#maxLagMs, this.#pollMs) * SAMPLE_HORIZON_FACTOR;
    while (this.#samples.length > 1 && this.#samples[0]!.at < horizon) this.#samples.shift();
    let replay: bigint | null;
    try {
      replay = await walReplayPosition(this.#replica!);
    } catch (error) {
      this.#setServing(false, 'the replica did not answer', error);
      return;
    }
    if (this.#stopped) return;
    if (replay === null) {
      this.#setServing(false, 'DATABASE_READ_URL is not in recovery (not a replica)');
      return;
    }
    let freshAsOf: number | undefined;
    for (let i = this.#samples.length - 1; i >= 0; i -= 1) {
      if (this.#samples[i]!.lsn <= replay) {
        freshAsOf = this.#samples[i]!.at;
        break;
      }
    }
    // Older than every sample kept: at least the horizon behind, unless an earlier poll knew better.
    this.#freshAsOf = freshAsOf ?? Math.min(this.#freshAsOf ?? horizon, horizon);
    this.#observeReplay(replay);
    this.#setServing(true, 'the replica answers');
  }

  /** Runs `read` on the replica; one the replica cannot serve runs on the primary. */
  async #onReplica<T>(read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    try {
      return await read(this.#replica!);
    } catch (error) {
      if (!replicaRefused(error)) throw error;
      if (isDatabaseUnavailable(error)) {
        this.#setServing(false, 'a read failed on the replica', error);
      }
      return read(this.#primary);
    }
  }

  #setServing(serving: boolean, reason: string, error?: unknown): void {
    if (!serving) this.#replay = undefined;
    if (serving === this.#serving) return;
    this.#serving = serving;
    if (!serving) for (const waiter of [...this.#waiters]) waiter.done(false);
    this.#onChange?.({ serving, reason, ...(error === undefined ? {} : { error }) });
  }
}

/**
 * A replica cannot serve this read, but the primary may: the connection
 * failed (isDatabaseUnavailable, except a statement timeout, which the
 * primary would hit as well), the query conflicted with WAL replay (40001:
 * "canceling statement due to conflict with recovery"), or it tried to write
 * (25006, read-only transaction).
 */
function replicaRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '57014') return false;
  return code === '40001' || code === '25006' || isDatabaseUnavailable(error);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
