import type { Request, RequestHandler, Response } from 'express';
import {
  getTRPCErrorFromUnknown,
  type AnyProcedure,
} from '@trpc/server/unstable-core-do-not-import';
import type { OpenApiMeta, OpenApiRouter } from 'trpc-to-openapi';
import { contextFactory, type AppDeps, type Context } from '../trpc/context.js';
import type { AppError } from '../app-error.js';
import { errorBody, errorHeaders, errorStatus, toAppError } from '../error-mapping.js';

interface Route {
  path: string;
  procedure: AnyProcedure;
}

/**
 * Routes taken from the procedures' own OpenAPI meta: a mutation with a JSON
 * body on a fixed path (no path parameters). The meta stays the one source
 * of every route; nothing here names a path.
 */
function fastRoutes(router: OpenApiRouter): Map<string, Route> {
  const routes = new Map<string, Route>();
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  for (const [path, procedure] of Object.entries(procedures)) {
    const openapi = (procedure._def.meta as OpenApiMeta | undefined)?.openapi;
    if (!openapi || procedure._def.type !== 'mutation') continue;
    if (!['POST', 'PATCH', 'PUT'].includes(openapi.method) || openapi.path.includes('{')) continue;
    routes.set(`${openapi.method} ${openapi.path}`, { path, procedure });
  }
  return routes;
}

/**
 * The REST face's common case without the OpenAPI adapter's per-request
 * conversion: the adapter builds a URL, an AbortSignal with listeners and a
 * caller proxy for every call (docs/PERFORMANCE.md). This calls the same
 * procedure with the body jsonBody() already parsed and answers exactly as
 * restHandler's responseMeta and error envelope do. Any other request (other
 * paths, query strings, GETs) calls `next()` and reaches the adapter.
 */
export function restFastPath(
  deps: AppDeps,
  router: OpenApiRouter,
  onError: (error: AppError, cause: unknown, req: Request) => void,
): RequestHandler {
  const routes = fastRoutes(router);
  const createContext = contextFactory(deps);
  return (req, res, next) => {
    const route = routes.get(`${req.method} ${req.url}`);
    if (!route) {
      next();
      return;
    }
    const ctx: Context = createContext({ req, res });
    route
      .procedure({
        path: route.path,
        type: 'mutation',
        ctx,
        batchIndex: 0,
        signal: undefined,
        // As the adapter: a shallow copy of the parsed body is the input.
        getRawInput: async () => ({ ...(req.body as object) }),
      })
      .then(
        (data: unknown) => send(res, ctx.response.created ? 201 : 200, {}, data),
        (cause: unknown) => {
          const error = getTRPCErrorFromUnknown(cause);
          const appError = toAppError(error);
          onError(appError, error.cause ?? error, req);
          send(res, errorStatus(appError), errorHeaders(appError), errorBody(appError));
        },
      );
  };
}

function send(res: Response, status: number, headers: Record<string, string>, body: unknown) {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}
