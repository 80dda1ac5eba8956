import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * Per-IP limit in front of both faces. Sets the IETF RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers) on every limited response.
 */
export function ipRateLimit(limiter: RateLimiter, perMinute: number): RequestHandler {
  return (req, res, next) => {
    if (perMinute === 0) {
      next();
      return;
    }
    const decision = limiter.take(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    res.setHeader('RateLimit-Policy', `${perMinute};w=60`);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      next(
        new AppError('RATE_LIMITED', 'Too many requests from this address; slow down', {
          retryAfterSeconds: decision.retryAfterSeconds,
        }),
      );
      return;
    }
    next();
  };
}
