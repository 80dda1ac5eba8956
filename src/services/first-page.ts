import { LRUCache } from 'lru-cache';
import type { PositionedEntry } from '../../db/queries/leaderboard.js';
import { teamKey } from '../../db/team-key.js';

/** Rows a first page is read with: the largest `limit` (100) and the one that says another page follows. */
export const FIRST_PAGE_ROWS = 101;
/** Boards whose first page an instance keeps (all-time, week, month, each team's). */
const MAX_BOARDS = 2_000;

/**
 * The first page of each live board, the same for every fan, shared by the
 * requests of one instance for at most `ttlMs` (LEADERBOARD_FIRST_PAGE_CACHE_MS;
 * docs/READS.md, The first page).
 *
 * The bound: a first page served is the answer of a read that **started** at
 * most `ttlMs` before (an entry expires `ttlMs` after its read was sent, not
 * after it answered), so a write committed on any instance is on every
 * instance's first page at most `ttlMs` after it committed (plus the replica's
 * lag when a replica serves the read). A fan write on this instance empties the
 * cache (`clear`), so the writer's next read here counts it at once. Requests
 * that miss together share one read.
 */
export class FirstPageCache {
  readonly #pages:
    LRUCache<string, { rows: Promise<PositionedEntry[]>; generation: number }> | undefined;
  /**
   * Bumped by `clear`: a page read in an earlier generation is a miss. (The
   * LRU's own clear() walks all MAX_BOARDS slots, on every fan write.)
   */
  #generation = 0;

  constructor(options: { ttlMs: number; now?: () => number }) {
    this.#pages =
      options.ttlMs > 0
        ? new LRUCache({
            max: MAX_BOARDS,
            ttl: options.ttlMs,
            // Exact expiry, on the test's clock when it gives one.
            ttlResolution: 0,
            ...(options.now ? { perf: { now: options.now } } : {}),
          })
        : undefined;
  }

  /**
   * The first FIRST_PAGE_ROWS rows of `board` (of `team`'s fans when given):
   * the cached ones, or `read`'s.
   */
  rows(
    board: string,
    team: string | undefined,
    read: () => Promise<PositionedEntry[]>,
  ): Promise<PositionedEntry[]> {
    if (this.#pages === undefined) return read();
    const key = team === undefined ? board : `${board}\n${teamKey(team)}`;
    const cached = this.#pages.get(key);
    if (cached?.generation === this.#generation) return cached.rows;
    const rows = read();
    this.#pages.set(key, { rows, generation: this.#generation });
    // A failed read is not kept: the next request reads again.
    rows.catch(() => {
      if (this.#pages?.get(key)?.rows === rows) this.#pages.delete(key);
    });
    return rows;
  }

  /** Forgets every page: a write on this instance may have moved any of them. */
  clear(): void {
    this.#generation += 1;
  }
}
