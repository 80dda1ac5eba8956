import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Logger } from './logger.js';
import { metrics, type Limiter } from './metrics.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts again (RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one more request is allowed (Retry-After), 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts `points` requests (default 1) for `key` at once, or none when not all fit. */
  take(key: string, points?: number): Promise<RateLimitDecision>;
}

/** The window every limit counts over: the headers say `w=60`. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * `perMinute` requests per key in a window of a minute that starts with the
 * key's first request (rate-limiter-flexible's fixed window). Returns
 * undefined when `perMinute` is 0: this is the one place where 0 means off,
 * and callers skip an absent limiter.
 *
 * Without `redis` the counts live in this process. With it, every instance
 * that shares the Redis (and `keyPrefix`) shares the counts. When Redis
 * fails (down, unreachable, too slow), rate-limiter-flexible's insurance
 * limiter takes over: this instance counts in its own memory until Redis
 * answers again. Requests are never refused, delayed or failed because Redis
 * is down; the limit is then per instance (docs/SECURITY.md).
 */
export function createRateLimiter(options: {
  perMinute: number;
  /** Tells this limit's keys from the other limit's (`user`, `ip`). */
  name: string;
  redis?: Redis | undefined;
  keyPrefix?: string;
}): RateLimiter | undefined {
  const { perMinute: points, name } = options;
  if (points === 0) return undefined;
  const label = name.replace(/:$/, '') as Limiter;
  const duration = RATE_LIMIT_WINDOW_SECONDS;
  const memory = new RateLimiterMemory({ points, duration, keyPrefix: name });
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        points,
        duration,
        keyPrefix: `${options.keyPrefix ?? ''}${name}`,
        insuranceLimiter: memory,
      })
    : memory;
  return {
    async take(key, count = 1) {
      try {
        return decision(points, await limiter.consume(key, count), true);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // All or nothing: a refused request gives back what it took, so a batch
        // that does not fit leaves room for a smaller one.
        await limiter.reward(key, count);
        metrics.rateLimited(label);
        return decision(points, rejection, false, rejection.consumedPoints - count);
      }
    },
  };
}

/**
 * Takes as many of `wanted` points for `key` as still fit in the window, and
 * answers how many it took (0 when none fit).
 */
export async function takeUpTo(limiter: RateLimiter, key: string, wanted: number): Promise<number> {
  if (wanted <= 0) return 0;
  const all = await limiter.take(key, wanted);
  if (all.allowed) return wanted;
  if (all.remaining === 0) return 0;
  // What was left when the whole did not fit; another request may take it first.
  const part = await limiter.take(key, Math.min(all.remaining, wanted));
  return part.allowed ? Math.min(all.remaining, wanted) : 0;
}

function decision(
  limit: number,
  res: RateLimiterRes,
  allowed: boolean,
  consumed = res.consumedPoints,
): RateLimitDecision {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - consumed),
    resetSeconds: seconds,
    retryAfterSeconds: allowed ? 0 : seconds,
  };
}

/**
 * The rate-limit response headers of draft-ietf-httpapi-ratelimit-headers-06:
 * `RateLimit-Policy` lists every limit that applied (`<requests>;w=60`), and
 * `RateLimit-Limit`/`-Remaining`/`-Reset` describe the one closest to running
 * out. A limit that is off has no decision; no decision at all → no headers.
 */
export function rateLimitHeaders(
  decisions: ReadonlyArray<RateLimitDecision | undefined>,
): Record<string, string> {
  const active = decisions.filter(
    (decision): decision is RateLimitDecision => decision !== undefined,
  );
  if (active.length === 0) return {};
  const tightest = active.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds)
      ? b
      : a,
  );
  return {
    'RateLimit-Policy': active
      .map((decision) => `${decision.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`)
      .join(', '),
    'RateLimit-Limit': String(tightest.limit),
    'RateLimit-Remaining': String(tightest.remaining),
    'RateLimit-Reset': String(tightest.resetSeconds),
  };
}

/**
 * The Redis client the limits share counts through. It fails fast instead of
 * queueing while disconnected (`enableOfflineQueue: false`) and gives up on a
 * command after `commandTimeoutMs`, so a Redis that is down or hanging sends
 * requests to the insurance limiter at once; it keeps reconnecting in the
 * background (ioredis' default backoff). Outages are logged once each way.
 */
export function connectRateLimitStore(
  url: string,
  logger: Logger,
  options: { commandTimeoutMs?: number } = {},
): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 250,
    connectTimeout: 2_000,
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err }, 'Redis unavailable: rate limits count per instance until it is back');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('Redis reachable again: rate limits are shared again');
  });
  return client;
}
