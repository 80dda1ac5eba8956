import type { Kysely } from 'kysely';
import {
  leaderboardPage,
  teamBoardTops,
  teamKeysOf,
  type RankedEntry,
} from '../../db/queries/leaderboard.js';
import type { Database } from '../../db/schema.js';
import { teamKey } from '../../db/team-key.js';
import { AppError } from '../app-error.js';
import type { Logger } from '../logger.js';
import type { StreamInbox } from './inbox.js';

/** The boards are read again at most this often, however many writes commit. */
export const BOARD_MIN_INTERVAL_MS = 1_000;
/** Every watched board is read again after this long (changes that announce no event). */
export const BOARD_REFRESH_MS = 30_000;
/** The most entries a leaderboard stream can ask for. */
export const BOARD_MAX_TOP = 100;
/**
 * The most entries the watched boards of an instance hold together (~300
 * bytes each: ~6 MB, inside the heap's reserve, docs/LIVE.md): 2,000 boards
 * of a top 10, or 200 of a top 100. A stream that would need more is refused
 * with a retryable error.
 */
export const BOARD_ENTRIES_MAX = 20_000;

export interface BoardOptions {
  /** Default BOARD_MIN_INTERVAL_MS. */
  minIntervalMs?: number;
  /** Default BOARD_REFRESH_MS. */
  refreshMs?: number;
  /** Default BOARD_ENTRIES_MAX. */
  maxEntries?: number;
}

/** One watched board: the whole board, or one team's fans on it. */
interface Board {
  /** The team key (db/team-key.ts); undefined for the whole board. */
  teamKey: string | undefined;
  /** Its top, `limit` entries at most, as last read. */
  entries: RankedEntry[];
  /** `entries` cut to each `top` its streams asked for: one array per top, shared by its streams. */
  tops: Map<number, RankedEntry[]>;
  /** How many entries its watchers need: the largest `top` among them. */
  limit: number;
  /** How many entries `entries` was read with (0 before the first read). */
  loaded: number;
  /** A read of this board alone in progress (its first, or for a larger top). */
  reading: Promise<void> | undefined;
  watchers: Set<StreamInbox>;
}

/** A stream's hold on a board: its top as last read, until `close`. */
export interface BoardWatch {
  top(): RankedEntry[];
  close(): void;
}

/**
 * The tops of the boards streamed from this instance, shared by every
 * stream of a board and kept current at a bounded cost (docs/LIVE.md,
 * Leaderboard stream). A write is noted by its user id only; at most once a
 * second, one round reads again the boards those writers can have moved —
 * the whole board, their teams' boards (one statement finds which), and any
 * board whose top holds one of them (they moved away, were renamed with an
 * award, were deleted) — with one statement for all team boards. So a round
 * costs at most three statements however many boards are watched, and
 * however many writes it covers; a board whose top did not change wakes
 * nobody. Every 30 s a round reads every watched board (renames and team
 * moves that announce no event).
 */
export class LiveBoards {
  #global: Board | undefined;
  readonly #teams = new Map<string, Board>();
  /** Users who wrote since the last round. */
  #writers = new Set<string>();
  /** The next round reads every board. */
  #everything = false;
  /** The sum of the watched boards' limits. */
  #entries = 0;
  #lastRound = 0;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #refresh: NodeJS.Timeout | undefined;
  readonly #minIntervalMs: number;
  readonly #refreshMs: number;
  readonly #maxEntries: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
    options: BoardOptions = {},
  ) {
    this.#minIntervalMs = options.minIntervalMs ?? BOARD_MIN_INTERVAL_MS;
    this.#refreshMs = options.refreshMs ?? BOARD_REFRESH_MS;
    this.#maxEntries = options.maxEntries ?? BOARD_ENTRIES_MAX;
  }

  /** How many boards are watched. */
  get size(): number {
    return this.#teams.size + (this.#global ? 1 : 0);
  }

  /** How many entries the watched boards hold at most (the sum of their limits). */
  get entries(): number {
    return this.#entries;
  }

  /** A write of `userId` committed (or the account was deleted): its boards may have moved. */
  wrote(userId: string): void {
    if (this.size === 0) return;
    this.#writers.add(userId);
    this.#schedule();
  }

  /**
   * Watches the board of `team` (the whole board when undefined) for
   * `inbox`, which is poked whenever the board's top changes. Resolves once
   * the top is known to `top` entries.
   */
  async watch(team: string | undefined, top: number, inbox: StreamInbox): Promise<BoardWatch> {
    const key = team === undefined ? undefined : teamKey(team);
    let board = key === undefined ? this.#global : this.#teams.get(key);
    const more = Math.max(0, top - (board?.limit ?? 0));
    if (this.#entries + more > this.#maxEntries) {
      throw new AppError(
        'UNAVAILABLE',
        'This instance streams as many leaderboard entries as it holds; retry shortly',
        { retryAfterSeconds: 5 },
      );
    }
    if (!board) {
      board = {
        teamKey: key,
        entries: [],
        tops: new Map(),
        limit: 0,
        loaded: 0,
        reading: undefined,
        watchers: new Set(),
      };
      if (key === undefined) this.#global = board;
      else this.#teams.set(key, board);
      this.#refresh ??= setInterval(() => {
        this.#everything = true;
        this.#schedule();
      }, this.#refreshMs).unref();
    }
    const watched = board;
    watched.watchers.add(inbox);
    watched.limit += more;
    this.#entries += more;
    const close = () => this.#unwatch(watched, inbox);
    try {
      while (watched.loaded < top) {
        watched.reading ??= this.#read([watched]).finally(() => (watched.reading = undefined));
        await watched.reading;
      }
    } catch (error) {
      close();
      throw error;
    }
    return { top: () => topOf(watched, top), close };
  }

  /** Stops the timers (the instance is shutting down). */
  stop(): void {
    clearTimeout(this.#timer);
    clearInterval(this.#refresh);
    this.#timer = undefined;
    this.#refresh = undefined;
  }

  #unwatch(board: Board, inbox: StreamInbox): void {
    if (!board.watchers.delete(inbox) || board.watchers.size > 0) return;
    this.#entries -= board.limit;
    if (board.teamKey === undefined) this.#global = undefined;
    else if (this.#teams.get(board.teamKey) === board) this.#teams.delete(board.teamKey);
    if (this.size === 0) {
      this.stop();
      this.#writers.clear();
      this.#everything = false;
    }
  }

  /** Runs a round when one is due: at most one at a time, BOARD_MIN_INTERVAL_MS apart. */
  #schedule(): void {
    if (this.#timer || this.#round) return;
    const wait = Math.max(0, this.#lastRound + this.#minIntervalMs - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#round = this.#runRound().finally(() => {
        this.#round = undefined;
        if (this.#writers.size > 0 || this.#everything) this.#schedule();
      });
    }, wait);
    this.#timer.unref();
  }

  async #runRound(): Promise<void> {
    this.#lastRound = Date.now();
    const writers = this.#writers;
    const everything = this.#everything;
    this.#writers = new Set();
    this.#everything = false;
    try {
      const boards = everything ? this.#all() : await this.#movedBy(writers);
      await this.#read(boards);
    } catch (err) {
      // The database is away: try again next round.
      this.logger.warn({ err }, 'live: leaderboard streams could not be refreshed');
      for (const writer of writers) this.#writers.add(writer);
      this.#everything ||= everything;
    }
  }

  #all(): Board[] {
    return [...(this.#global ? [this.#global] : []), ...this.#teams.values()];
  }

  /** The boards whose top the writers can have changed. */
  async #movedBy(writers: Set<string>): Promise<Board[]> {
    if (writers.size === 0) return [];
    const moved = new Set<Board>();
    if (this.#global) moved.add(this.#global);
    for (const board of this.#teams.values()) {
      // A board being read for the first time may have read before these writes.
      const inTop = board.entries.some((entry) => writers.has(entry.userId));
      if (inTop || board.reading) moved.add(board);
    }
    const teamBoardsMoved = moved.size - (this.#global ? 1 : 0);
    if (teamBoardsMoved < this.#teams.size) {
      for (const key of await teamKeysOf(this.db, [...writers])) {
        const board = this.#teams.get(key);
        if (board) moved.add(board);
      }
    }
    return [...moved];
  }

  /** Reads the boards' tops (one statement for the whole board, one for every team board) and pokes the watchers of those that changed. */
  async #read(boards: Board[]): Promise<void> {
    if (boards.length === 0) return;
    const global = boards.find((board) => board.teamKey === undefined);
    const teams = boards.filter((board) => board.teamKey !== undefined);
    const limits = new Map(boards.map((board) => [board, board.limit]));
    const [globalTop, teamTops] = await Promise.all([
      global && leaderboardPage(this.db, { limit: limits.get(global)! }),
      teamBoardTops(
        this.db,
        teams.map((board) => ({ teamKey: board.teamKey!, limit: limits.get(board)! })),
      ),
    ]);
    for (const board of boards) {
      const top =
        board === global
          ? globalTop!.map(({ position: _position, ...entry }) => entry)
          : teamTops.get(board.teamKey!)!;
      board.loaded = Math.max(board.loaded, limits.get(board)!);
      if (sameEntries(board.entries, top)) continue;
      board.entries = top;
      board.tops.clear();
      for (const inbox of board.watchers) inbox.poke();
    }
  }
}

/**
 * The board's first `top` entries: the same array for every stream of that
 * top until the board changes, so their message is made, checked and
 * serialised once (routers/live.ts).
 */
function topOf(board: Board, top: number): RankedEntry[] {
  let entries = board.tops.get(top);
  if (entries === undefined) {
    entries = board.entries.slice(0, top);
    board.tops.set(top, entries);
  }
  return entries;
}

/** Whether two tops show the same thing. */
export function sameEntries(a: readonly RankedEntry[], b: readonly RankedEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every((entry, i) => {
      const other = b[i]!;
      return (
        entry.userId === other.userId &&
        entry.points === other.points &&
        entry.rank === other.rank &&
        entry.name === other.name &&
        entry.handle === other.handle &&
        entry.profileUrl === other.profileUrl
      );
    })
  );
}
