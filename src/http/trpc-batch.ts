import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../app-error.js';

/** Most calls one tRPC batch may carry (docs/decisions/0003-requests-and-methods.md). */
export const MAX_TRPC_BATCH = 10;

/**
 * How many procedure calls a /trpc request makes, read the way tRPC reads it:
 * `?batch=1` makes the path a comma-separated list of procedures, one call
 * each; anything else is one call.
 */
export function trpcCallCount(req: Request): number {
  const query = req.url.indexOf('?');
  if (query < 0) return 1; // the common call: no URL to parse
  if (new URLSearchParams(req.url.slice(query + 1)).get('batch') !== '1') return 1;
  return req.url.slice(1, query).split(',').length;
}

/** Calls the request makes, as trpcBatchLimit left it (1 outside /trpc). */
export function callsOf(res: Response): number {
  const calls: unknown = res.locals.calls;
  return typeof calls === 'number' ? calls : 1;
}

/**
 * First on /trpc, before the body is read, the rate limits are counted or a
 * token is looked at: a batch of more than MAX_TRPC_BATCH calls is a 400. A
 * smaller batch leaves its size in `res.locals.calls`, so the rate limits
 * count each call.
 */
export function trpcBatchLimit(): RequestHandler {
  return (req, res, next) => {
    const calls = trpcCallCount(req);
    if (calls > MAX_TRPC_BATCH) {
      next(
        new AppError(
          'VALIDATION_FAILED',
          `A tRPC batch may carry at most ${MAX_TRPC_BATCH} calls; this one has ${calls}`,
        ),
      );
      return;
    }
    res.locals.calls = calls;
    next();
  };
}
