import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { createOpenApiExpressMiddleware, type OpenApiRouter } from 'trpc-to-openapi';
import { contextFactory, type AppDeps, type Context } from '../trpc/context.js';
import type { AppError } from '../app-error.js';
import { errorBody, errorHeaders, errorStatus, toAppError } from '../error-mapping.js';
import { restFastPath } from './rest-fast.js';

/**
 * The REST face: trpc-to-openapi serves every procedure that has OpenAPI meta
 * on its documented path. The adapter writes errors in its own shape; we keep
 * its routing, parsing of inputs and status handling, and replace only the
 * error body with our envelope (DESIGN §7). Unmatched paths answer 404 here,
 * so this must be the last route. The documented JSON mutations are answered
 * by restFastPath first, with the same procedures, meta and envelope.
 */
export function restHandler(deps: AppDeps, router: OpenApiRouter): RequestHandler {
  const failures = new WeakMap<IncomingMessage, AppError>();
  const handler = createOpenApiExpressMiddleware({
    router,
    createContext: contextFactory(deps),
    onError: ({ error, req }) => {
      const appError = toAppError(error);
      failures.set(req, appError);
      if (appError.code === 'INTERNAL') {
        (req as { log?: AppDeps['logger'] }).log?.error(
          { err: error.cause ?? error },
          'internal error',
        );
      }
    },
    responseMeta: ({ ctx, errors }) => {
      const error = errors[0];
      if (error) {
        const appError = toAppError(error);
        return { status: errorStatus(appError), headers: errorHeaders(appError) };
      }
      return { status: (ctx as Context | undefined)?.response.created ? 201 : 200 };
    },
  });

  const fast = restFastPath(deps, router, (appError, cause, req) => {
    if (appError.code === 'INTERNAL') req.log.error({ err: cause }, 'internal error');
  });
  const adapter: RequestHandler = (req, res, next) => {
    const end = res.end.bind(res) as (chunk?: unknown) => typeof res;
    res.end = ((chunk?: unknown) => {
      const failure = failures.get(req);
      return end(failure ? JSON.stringify(errorBody(failure)) : chunk);
    }) as typeof res.end;
    handler(req, res).catch(next);
  };
  return (req, res, next) => fast(req, res, () => adapter(req, res, next));
}
