import type { RequestHandler } from 'express';
import { createOpenApiExpressMiddleware, type OpenApiRouter } from 'trpc-to-openapi';
import { contextFactory, successStatus, type AppDeps, type Context } from '../trpc/context.js';

/**
 * The REST face: trpc-to-openapi serves every procedure that has OpenAPI meta
 * on its documented path, and answers unknown paths with a 404, so this is
 * the last route.
 *
 * Its errors leave through the app's error handler, in the envelope
 * (docs/CONTRACT.md, Errors), like every other error of the chain: the
 * adapter writes `{ ...errorShape, message, code, issues }` itself and
 * offers no hook for the body (responseMeta sets only status and headers,
 * and the errorFormatter is the router's, which /trpc needs in tRPC's shape).
 * It calls `onError` before it writes anything, so `onError` rethrows the
 * error: the adapter's promise rejects and Express hands the error to the
 * error handler. test/platform/errors/rest-errors.test.ts fails if a later
 * adapter swallows that or writes its own body.
 */
export function restHandler(deps: AppDeps, router: OpenApiRouter): RequestHandler {
  const adapter = createOpenApiExpressMiddleware({
    router,
    createContext: contextFactory(deps),
    onError: ({ error }) => {
      throw error;
    },
    responseMeta: ({ ctx }) => ({ status: successStatus(ctx as Context | undefined) }),
  });
  return (req, res, next) => {
    adapter(req, res).catch(next);
  };
}
