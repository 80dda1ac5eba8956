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
  /** Takes `points` requests (default 1) for `key` at once, or none when not all fit. */
  take(key: string, points?: number): RateLimitDecision;
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
    take(key, points = 1) {
      const at = now();
      sweep(at);
      const bucket = buckets.get(key) ?? { tokens: perMinute, updatedAt: at };
      bucket.tokens = Math.min(perMinute, bucket.tokens + (at - bucket.updatedAt) * refillPerMs);
      bucket.updatedAt = at;
      const allowed = bucket.tokens >= points;
      if (allowed) bucket.tokens -= points;
      buckets.set(key, bucket);
      return {
        allowed,
        limit: perMinute,
        remaining: Math.floor(bucket.tokens),
        resetSeconds: Math.ceil((perMinute - bucket.tokens) / refillPerMs / 1000),
        retryAfterSeconds: allowed
          ? 0
          : Math.ceil((Math.min(points, perMinute) - bucket.tokens) / refillPerMs / 1000),
      };
    },
  };
}

/**
 * The rate-limit response headers of draft-ietf-httpapi-ratelimit-headers-06:
 * `RateLimit-Policy` lists every limit that applied (`<requests>;w=60`), and
 * `RateLimit-Limit`/`-Remaining`/`-Reset` describe the one closest to running
 * out. Limits that are off (0) are left out; no limit at all → no headers.
 */
export function rateLimitHeaders(
  decisions: ReadonlyArray<RateLimitDecision | undefined>,
): Record<string, string> {
  const active = decisions.filter(
    (decision): decision is RateLimitDecision => decision !== undefined && decision.limit > 0,
  );
  if (active.length === 0) return {};
  const tightest = active.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds)
      ? b
      : a,
  );
  return {
    'RateLimit-Policy': active.map((decision) => `${decision.limit};w=60`).join(', '),
    'RateLimit-Limit': String(tightest.limit),
    'RateLimit-Remaining': String(tightest.remaining),
    'RateLimit-Reset': String(tightest.resetSeconds),
  };
}
