import type { RequestHandler } from 'express';
import type { AnyTRPCRouter } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { contextFactory, type AppDeps } from '../trpc/context.js';
import { errorHeaders, logInternalError, toAppError } from '../error-mapping.js';
import type { BodyLimits } from './body.js';
import { noteErrorCode } from './observed.js';

/**
 * The tRPC face at /trpc: same procedures, the standard tRPC wire format
 * through tRPC's Express adapter — queries, mutations and the live
 * subscriptions (Server-Sent Events) alike. An error carries the headers the
 * envelope's would (Retry-After, WWW-Authenticate, Allow) beside tRPC's own
 * shape.
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
    onError: ({ error, req, ctx, type }) => {
      const appError = toAppError(error);
      if (req.res) noteErrorCode(req.res, appError.code);
      logInternalError(req.log, appError);
      // A subscription refused by its procedure is answered `200
      // text/event-stream` with the error in the stream, and the adapter does
      // not show that error to responseMeta: its headers (Retry-After,
      // WWW-Authenticate) are set here, before the adapter writes the head.
      // An error later in the stream finds the head sent and sets nothing.
      if (type === 'subscription') ctx?.setHeaders(errorHeaders(appError));
    },
    responseMeta: ({ errors }) => {
      const error = errors[0];
      return error ? { headers: errorHeaders(toAppError(error)) } : {};
    },
  });
}
