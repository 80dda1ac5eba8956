import { LRUCache } from 'lru-cache';
import type { StateScope, UserState } from '../../db/queries/user-write/index.js';

/**
 * The state each user's last write on this instance left behind, so that
 * the user's next write can plan from it and send its one guarded statement
 * without reading first (docs/decisions/0014-write-state-cache.md).
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
 * An entry is the state for one scope (the all-time board and the season
 * boards of the moment, the quest periods of the moment); when a day or a
 * season rolls over, the key no longer matches and the write reads.
 */
/**
 * The cache's key for a state read's scope: an entry holds the entries and
 * quests of exactly these boards and periods.
 */
export function scopeKey(scope: StateScope): string {
  return `${scope.boards.join(' ')} | ${scope.periods.join(' ')}`;
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

  /** Per user, the end of the last write that has started on this instance. */
  readonly #turns = new Map<string, Promise<unknown>>();

  /**
   * Runs `write` once the user's earlier writes on this instance have
   * finished, so it plans from the state they left instead of racing them
   * to a guarded statement one of them must lose (a lost race costs the
   * loser a read and a second write, each a trip through the event loop's
   * queue; docs/decisions/0014-write-state-cache.md). Always on, whatever the cache's size; writes
   * of different users, and writes on other instances, never wait here: the
   * version guard still decides every race.
   */
  async inTurn<T>(userId: string, write: () => Promise<T>): Promise<T> {
    const before = this.#turns.get(userId);
    const run = before ? before.then(write, write) : write();
    const done = run.then(noop, noop);
    this.#turns.set(userId, done);
    try {
      return await run;
    } finally {
      if (this.#turns.get(userId) === done) this.#turns.delete(userId);
    }
  }
}

const noop = () => {};
