import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Principal } from './principal.js';
import type { AuthVerifier } from './verifier.js';

/** Most verified tokens kept per process (~10k × ~200 bytes). */
export const TOKEN_CACHE_MAX_ENTRIES = 10_000;

/**
 * Remembers tokens that verified, so a client sending the same bearer token
 * again skips the signature check (about 100 µs of CPU for ES256). An entry
 * lives `ttlSeconds`, never past the token's own `exp`. The key is the SHA-256
 * of the whole token, so only a byte-identical token hits; failures are never
 * cached. The price is a revocation window: a token whose signing key the
 * identity provider withdraws is still accepted for up to `ttlSeconds` by a
 * process that verified it before (docs/decisions/0009-caches-of-identity.md).
 */
export function withTokenCache(
  verifier: AuthVerifier,
  options: { ttlSeconds: number; maxEntries?: number; now?: () => number },
): AuthVerifier {
  if (options.ttlSeconds <= 0) return verifier;
  const now = options.now ?? Date.now;
  const cache = new LRUCache<string, Principal>({
    max: options.maxEntries ?? TOKEN_CACHE_MAX_ENTRIES,
    // Tests age entries on their own clock; otherwise lru-cache's monotonic one.
    ...(options.now ? { perf: { now: options.now } } : {}),
    ttlResolution: 0,
  });
  const ttlMs = options.ttlSeconds * 1000;
  return {
    async verify(token) {
      const key = createHash('sha256').update(token).digest('base64url');
      const cached = cache.get(key);
      if (cached && cached.expiresAt * 1000 > now()) return cached;
      const principal = await verifier.verify(token);
      const ttl = Math.min(ttlMs, principal.expiresAt * 1000 - now());
      if (ttl > 0) cache.set(key, principal, { ttl });
      return principal;
    },
  };
}
