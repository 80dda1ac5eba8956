import type { Request, RequestHandler } from 'express';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { contextFactory, type AppDeps } from '../trpc/context.js';
import { errorHeaders, logInternalError, toAppError } from '../error-mapping.js';
import { BODY_LIMIT_BYTES } from './body.js';
import { trpcFastPath } from './trpc-fast.js';

/**
 * The tRPC face at /trpc: same procedures, the standard tRPC wire format.
 * Single JSON mutations take the fast path (trpc-fast.ts); everything else,
 * and every edge case, goes through tRPC's adapter.
 */
export function trpcHandler(deps: AppDeps, router: AnyTRPCRouter): RequestHandler {
  const adapter = createExpressMiddleware({
    router,
    createContext: contextFactory(deps),
    maxBodySize: BODY_LIMIT_BYTES,
    onError: ({ error, req }) => onError(error, req),
    responseMeta: ({ errors }) => {
      const error = errors[0];
      return error ? { headers: headersFor(error) } : {};
    },
  });
  const fast = trpcShortCut(deps, router);
  return (req, res, next) => fast(req, res, () => void adapter(req, res, next));
}

/** The tRPC short-cut (trpc-fast.ts) as this face wires it, with the adapter's error hooks. */
export function trpcShortCut(deps: AppDeps, router: AnyTRPCRouter): RequestHandler {
  return trpcFastPath(deps, router, { onError, errorHeaders: headersFor });
}

const onError = (error: TRPCError, req: Request) => logInternalError(req.log, toAppError(error));
const headersFor = (error: TRPCError) => errorHeaders(toAppError(error));
