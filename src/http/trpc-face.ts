import type { RequestHandler } from 'express';
import type { AnyTRPCRouter } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { contextFactory, type AppDeps } from '../trpc/context.js';
import { errorHeaders, logInternalError, toAppError } from '../error-mapping.js';
import type { BodyLimits } from './body.js';
import { noteErrorCode } from './observed.js';
import { subscriptionStreams } from './sse.js';

/**
 * The tRPC face at /trpc: same procedures, the standard tRPC wire format
 * through tRPC's Express adapter (subscriptions: trpcSubscriptions, below). An error carries the headers the envelope's
 * would (Retry-After, WWW-Authenticate, Allow) beside tRPC's own shape.
 */
export function trpcHandler(
  deps: AppDeps,
  router: AnyTRPCRouter,
  limits: BodyLimits,
): RequestHandler {
  return createExpressMiddleware({
    router,
    createContext: contextFactory(deps),
    // trpcBodyGuard has applied each call's own limit already.
    maxBodySize: limits.largest,
    onError: ({ error, req }) => {
      const appError = toAppError(error);
      if (req.res) noteErrorCode(req.res, appError.code);
      logInternalError(req.log, appError);
    },
    responseMeta: ({ errors }) => {
      const error = errors[0];
      return error ? { headers: errorHeaders(toAppError(error)) } : {};
    },
  });
}

/**
 * The subscriptions of this face, streamed by sse.ts (an open stream held by
 * the adapter costs three times the heap); the adapter serves everything else.
 */
export function trpcSubscriptions(deps: AppDeps, router: AnyTRPCRouter): RequestHandler {
  return subscriptionStreams(deps, router, {
    onError: (error, req) => {
      const appError = toAppError(error);
      if (req.res) noteErrorCode(req.res, appError.code);
      logInternalError(req.log, appError);
    },
  });
}
