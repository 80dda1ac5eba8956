import { LRUCache } from 'lru-cache';
import type { UserState } from '../../db/queries/user-write.js';

/**
 * The state each user's last write on this instance left behind, so that
 * the user's next write can plan from it and send its one guarded statement
 * without reading first (docs/DECISIONS.md, "The write path's state cache").
 *
 * Nothing here is trusted. A plan made from a cached state is only ever
 * sent as a guarded write: the statement changes nothing unless the user is
 * still at the cached version, and when the version moved (a write on
 * another instance, a deletion) it returns the state it found, which the
 * next try plans from. A cached state that would answer without a write (a
 * PATCH that changes nothing, a refused handle change) is read again first.
 * So a stale entry costs what every write cost before the cache, one read
 * and one write, and never a wrong answer.
 *
 * An entry is the state for one list of boards (the all-time board and the
 * season boards of the moment); when a season rolls over, the key no longer
 * matches and the write reads.
 */
/** The cache's key for a list of boards (an entry holds the entries of exactly these). */
export function boardsKey(boards: readonly string[]): string {
  return boards.join(' ');
}

export class UserStateCache {
  readonly #entries: LRUCache<string, { boards: string; state: UserState }> | undefined;

  /** `maxEntries` 0 turns the cache off: every write reads first. */
  constructor(maxEntries: number) {
    this.#entries = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
  }

  get(userId: string, boards: string): UserState | undefined {
    const entry = this.#entries?.get(userId);
    return entry?.boards === boards ? entry.state : undefined;
  }

  set(userId: string, boards: string, state: UserState): void {
    this.#entries?.set(userId, { boards, state });
  }

  delete(userId: string): void {
    this.#entries?.delete(userId);
  }
}
