export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one more request is allowed (Retry-After), 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string): RateLimitDecision;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const WINDOW_MS = 60_000;

/**
 * A token bucket per key: `perMinute` requests of burst, refilled evenly over a
 * minute. In process memory, so each instance counts on its own (docs/SECURITY.md
 * says why that is acceptable). `perMinute` 0 turns the limit off.
 */
export function createRateLimiter(perMinute: number, now: () => number = Date.now): RateLimiter {
  if (perMinute === 0) {
    return {
      take: () => ({
        allowed: true,
        limit: 0,
        remaining: 0,
        resetSeconds: 0,
        retryAfterSeconds: 0,
      }),
    };
  }
  const buckets = new Map<string, Bucket>();
  const refillPerMs = perMinute / WINDOW_MS;
  let lastSweep = now();

  // Full buckets carry no information; dropping them bounds memory by the
  // number of keys active in the last minute.
  function sweep(at: number): void {
    if (at - lastSweep < WINDOW_MS) return;
    lastSweep = at;
    for (const [key, bucket] of buckets) {
      if (bucket.tokens + (at - bucket.updatedAt) * refillPerMs >= perMinute) buckets.delete(key);
    }
  }

  return {
    take(key) {
      const at = now();
      sweep(at);
      const bucket = buckets.get(key) ?? { tokens: perMinute, updatedAt: at };
      bucket.tokens = Math.min(perMinute, bucket.tokens + (at - bucket.updatedAt) * refillPerMs);
      bucket.updatedAt = at;
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      buckets.set(key, bucket);
      return {
        allowed,
        limit: perMinute,
        remaining: Math.floor(bucket.tokens),
        resetSeconds: Math.ceil((perMinute - bucket.tokens) / refillPerMs / 1000),
        retryAfterSeconds: allowed ? 0 : Math.ceil((1 - bucket.tokens) / refillPerMs / 1000),
      };
    },
  };
}
