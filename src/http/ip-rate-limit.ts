import type { RequestHandler } from 'express';
import { AppError } from '../app-error.js';
import { rateLimitHeaders, type RateLimiter } from '../rate-limit.js';
import { callsOf } from './trpc-batch.js';

/**
 * Per-IP limit in front of both faces (none when the limit is off). Sets the
 * RateLimit headers (draft-ietf-httpapi-ratelimit-headers-06) on every limited
 * response and leaves its decision in `res.locals.ipRateLimit`, so the
 * per-user limit can report whichever of the two is tighter.
 */
export function ipRateLimit(limiter: RateLimiter | undefined): RequestHandler {
  if (!limiter) return (_req, _res, next) => next();
  return (req, res, next) => {
    // A tRPC batch of n calls counts n.
    limiter.take(req.ip ?? req.socket.remoteAddress ?? 'unknown', callsOf(res)).then((decision) => {
      res.locals.ipRateLimit = decision;
      res.set(rateLimitHeaders([decision]));
      if (!decision.allowed) {
        next(
          new AppError('RATE_LIMITED', 'Too many requests from this address; slow down', {
            retryAfterSeconds: decision.retryAfterSeconds,
          }),
        );
        return;
      }
      next();
    }, next);
  };
}
