import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import {
  createOpenApiExpressMiddleware,
  getPathRegExp,
  normalizePath,
  type OpenAPIObject,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { contextFactory, successStatus, type AppDeps, type Context } from '../trpc/context.js';
import { AppError } from '../app-error.js';
import { HTTP_METHODS } from '../openapi.js';
import {
  errorBody,
  errorHeaders,
  errorStatus,
  logInternalError,
  toAppError,
} from '../error-mapping.js';
import { restFastPath } from './rest-fast.js';
import { sendError } from './send-error.js';

interface PathMethods {
  template: string;
  pattern: RegExp;
  methods: string[];
}

/**
 * Every path of the OpenAPI document (generated from the procedures' meta, plus
 * the health checks) with the methods it answers, matched the way the adapter
 * matches paths (its own `normalizePath` and `getPathRegExp`), so a new
 * operation needs nothing here.
 */
export function documentedPaths(document: Pick<OpenAPIObject, 'paths'>): PathMethods[] {
  return Object.entries(document.paths ?? {}).map(([path, item]) => {
    const template = normalizePath(path);
    return {
      template,
      pattern: getPathRegExp(template),
      methods: Object.keys(item as object)
        .filter((method) => HTTP_METHODS.includes(method))
        .map((method) => method.toUpperCase()),
    };
  });
}

/**
 * METHOD_NOT_ALLOWED (405, with `Allow`) for a method a documented path does
 * not answer; undefined for a documented method or an unknown path (the
 * adapter answers those). HEAD is allowed wherever GET is, as HTTP has it.
 */
export function methodNotAllowed(
  paths: readonly PathMethods[],
  method: string,
  url: string,
): AppError | undefined {
  const path = normalizePath(new URL(url, 'http://localhost').pathname);
  const known = paths.filter((entry) => entry.pattern.test(path));
  const documented = new Set(known.flatMap((entry) => entry.methods));
  if (documented.has('GET')) documented.add('HEAD');
  if (known.length === 0 || documented.has(method)) return undefined;
  const allow = [...documented].sort();
  const choices =
    allow.length > 1 ? `${allow.slice(0, -1).join(', ')} or ${allow.at(-1)}` : allow.join('');
  return new AppError(
    'METHOD_NOT_ALLOWED',
    `${method} is not supported on ${path}: use ${choices}`,
    {
      allow,
    },
  );
}

/**
 * The REST face: trpc-to-openapi serves every procedure that has OpenAPI meta
 * on its documented path. The adapter writes errors in its own shape; we keep
 * its routing, parsing of inputs and status handling, and replace only the
 * error body with our envelope (docs/CONTRACT.md, Errors). A path of the OpenAPI document
 * called with a method it does not document answers 405 with `Allow`; unmatched paths answer 404 here,
 * so this must be the last route. The documented JSON mutations are answered
 * by restFastPath first, with the same procedures, meta and envelope.
 */
export function restHandler(
  deps: AppDeps,
  router: OpenApiRouter,
  document: Pick<OpenAPIObject, 'paths'>,
): RequestHandler {
  const failures = new WeakMap<IncomingMessage, AppError>();
  const handler = createOpenApiExpressMiddleware({
    router,
    createContext: contextFactory(deps),
    onError: ({ error, req }) => {
      const appError = toAppError(error);
      failures.set(req, appError);
      logInternalError((req as Request).log, appError);
    },
    responseMeta: ({ ctx, errors }) => {
      const error = errors[0];
      if (error) {
        const appError = toAppError(error);
        return { status: errorStatus(appError), headers: errorHeaders(appError) };
      }
      return { status: successStatus(ctx as Context | undefined) };
    },
  });

  const fast = restShortCut(deps, router);
  const paths = documentedPaths(document);
  const adapter: RequestHandler = (req, res, next) => {
    const notAllowed = methodNotAllowed(paths, req.method, req.url);
    if (notAllowed) {
      sendError(res, notAllowed);
      return;
    }
    // No supported hook exists for the error body: trpc-to-openapi 3.3 lets
    // responseMeta set only the status and headers, and writes
    // `{ ...errorShape, message, code, issues }` itself, from the errorFormatter
    // that /trpc needs in tRPC's own shape. So the envelope replaces that body
    // as it is written; `onError` (above) has recorded the AppError for it.
    const end = res.end.bind(res) as (chunk?: unknown) => typeof res;
    res.end = ((chunk?: unknown) => {
      const failure = failures.get(req);
      return end(failure ? JSON.stringify(errorBody(failure)) : chunk);
    }) as typeof res.end;
    handler(req, res).catch(next);
  };
  return (req, res, next) => fast(req, res, () => adapter(req, res, next));
}

/** The REST short-cut (rest-fast.ts) as this face wires it: its internal errors are logged. */
export function restShortCut(deps: AppDeps, router: OpenApiRouter): RequestHandler {
  return restFastPath(deps, router, (appError, req) => logInternalError(req.log, appError));
}
