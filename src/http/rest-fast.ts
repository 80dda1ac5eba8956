import type { Request, RequestHandler, Response } from 'express';
import { callTRPCProcedure, getTRPCErrorFromUnknown } from '@trpc/server';
import type { OpenApiMeta, OpenApiRouter } from 'trpc-to-openapi';
import type { AppError } from '../app-error.js';
import { errorBody, errorHeaders, errorStatus, toAppError } from '../error-mapping.js';
import { contextFactory, successStatus, type AppDeps, type Context } from '../trpc/context.js';

/**
 * `METHOD path` → procedure path of what the short-cut answers, taken from the
 * procedures' own OpenAPI meta: a mutation with a JSON body on a fixed path
 * (no path parameters). The meta stays the one source of every route; nothing
 * here names a path.
 */
export function fastRoutes(router: OpenApiRouter): Map<string, string> {
  const routes = new Map<string, string>();
  const procedures = router._def.procedures as Record<
    string,
    { _def: { type: string; meta?: OpenApiMeta } }
  >;
  for (const [path, procedure] of Object.entries(procedures)) {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi || procedure._def.type !== 'mutation') continue;
    if (!['POST', 'PATCH', 'PUT'].includes(openapi.method) || openapi.path.includes('{')) continue;
    routes.set(`${openapi.method} ${openapi.path}`, path);
  }
  return routes;
}

/**
 * A short-cut in front of trpc-to-openapi for the documented JSON mutations:
 * the adapter builds a URL, an AbortSignal with listeners and a caller proxy
 * for every call (docs/PERFORMANCE.md). This calls the same procedure through
 * tRPC's public `callTRPCProcedure` with the body jsonBody() already parsed,
 * and answers as the REST face does (successStatus, the envelope).
 * test/integration/fast-path-parity.test.ts sends every operation's cases both
 * ways and compares status, headers and body. Any other request (other paths,
 * query strings, GETs) calls `next()` and reaches the adapter.
 */
export function restFastPath(
  deps: AppDeps,
  router: OpenApiRouter,
  onError: (error: AppError, req: Request) => void,
): RequestHandler {
  const routes = fastRoutes(router);
  const createContext = contextFactory(deps);
  return (req, res, next) => {
    const path = routes.get(`${req.method} ${req.url}`);
    if (path === undefined) {
      next();
      return;
    }
    const ctx: Context = createContext({ req, res });
    callTRPCProcedure({
      router,
      path,
      type: 'mutation',
      ctx,
      batchIndex: 0,
      signal: undefined,
      // As the adapter: a shallow copy of the parsed body is the input.
      getRawInput: async () => ({ ...(req.body as object) }),
    }).then(
      (data: unknown) => send(res, successStatus(ctx), {}, data),
      (cause: unknown) => {
        const error = toAppError(getTRPCErrorFromUnknown(cause));
        onError(error, req);
        send(res, errorStatus(error), errorHeaders(error), errorBody(error));
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
