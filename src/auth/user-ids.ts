import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { ensureUser } from '../../db/queries/users.js';
import type { Database } from '../../db/schema.js';
import { principalKey, type FanPrincipal } from './principal.js';

/** Most (issuer, subject) → user id pairs kept per process. */
export const USER_ID_CACHE_MAX_ENTRIES = 10_000;
/**
 * How long a pair is reused. A user's id never changes while the account
 * lives. When it is deleted (DELETE /api/user, on any instance), every
 * instance is told and forgets the id (forgetUser, wired in src/app.ts).
 * Until the news arrives, a cached id names no user: the operation fails
 * with UserGoneError and protectedProcedure forgets the pair and resolves the
 * identity again, so a stale entry never outlives the first request that
 * meets it.
 */
export const USER_ID_CACHE_TTL_MS = 10 * 60_000;

export interface UserIdResolver {
  /** The user id for a verified principal; the user row is created on first sight. */
  resolve(db: Kysely<Database>, principal: FanPrincipal): Promise<string>;
  /** Drops the cached id of a principal (its account was deleted). */
  forget(principal: FanPrincipal): void;
  /** Drops every pair naming `userId` (its account was deleted, maybe on another instance). */
  forgetUser(userId: string): void;
  /** Drops every pair (deletions may have gone unannounced). */
  clear(): void;
}

/**
 * Saves the `users` lookup on every request after the first for an identity.
 * Correctness still comes from the database: ensureUser is race-free, and a
 * cached id is only ever one the database returned for that identity.
 */
export function createUserIdResolver(
  options: {
    maxEntries?: number;
    now?: () => number;
    /** Told the user id of each identity looked up in (or added to) the database. */
    onLookup?: (userId: string) => void;
  } = {},
): UserIdResolver {
  const cache = new LRUCache<string, string>({
    max: options.maxEntries ?? USER_ID_CACHE_MAX_ENTRIES,
    ttl: USER_ID_CACHE_TTL_MS,
    // Tests age entries on their own clock; otherwise lru-cache's monotonic one.
    ...(options.now ? { perf: { now: options.now } } : {}),
    ttlResolution: 0,
  });
  return {
    async resolve(db, principal) {
      const key = principalKey(principal);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const user = await ensureUser(db, principal.issuer, principal.subject);
      options.onLookup?.(user.id);
      cache.set(key, user.id);
      return user.id;
    },
    forget(principal) {
      cache.delete(principalKey(principal));
    },
    forgetUser(userId) {
      // Deletions are rare; a scan of at most maxEntries pairs keeps the cache one map.
      const keys: string[] = [];
      cache.forEach((id, key) => {
        if (id === userId) keys.push(key);
      });
      for (const key of keys) cache.delete(key);
    },
    clear() {
      cache.clear();
    },
  };
}
