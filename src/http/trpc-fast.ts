import type { RequestHandler } from 'express';
import {
  getErrorShape,
  getHTTPStatusCode,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
  TRPCError,
  type AnyProcedure,
  type AnyRouter,
} from '@trpc/server/unstable-core-do-not-import';
import { contextFactory, type AppDeps, type Context } from '../trpc/context.js';

/**
 * The common tRPC call — one mutation, not batched, POSTed as a JSON body —
 * answered without the fetch adapter. The adapter turns every
 * Node request into a Fetch `Request` (with an AbortSignal and a body stream)
 * and its `Response` back; under load that conversion cost more than the
 * procedure's own work (docs/PERFORMANCE.md).
 *
 * It runs after trpcBodyGuard (body limits), calls the same procedure the same
 * way the adapter does (raw input, ctx, path, type) and writes the answer with
 * tRPC's own functions (error shape, transformer, status), so the wire format
 * is the adapter's. Anything else — batches, queries, streaming, other media
 * types — calls `next()` and the adapter answers it, with all of its checks.
 */
export function trpcFastPath(
  deps: AppDeps,
  router: AnyRouter,
  hooks: {
    onError: (error: TRPCError, req: Parameters<RequestHandler>[0]) => void;
    errorHeaders: (error: TRPCError) => Record<string, string>;
  },
): RequestHandler {
  const config = router._def._config;
  const createContext = contextFactory(deps);
  return (req, res, next) => {
    const procedure = fastProcedure(router, req);
    if (!procedure) {
      next();
      return;
    }
    const path = req.url.slice(1);
    // trpcBodyGuard has read the body as text, within the body limits.
    const body = req.body as string;
    const ctx: Context = createContext({ req, res });
    let input: unknown;
    procedure({
      path,
      type: 'mutation',
      ctx,
      batchIndex: 0,
      signal: undefined,
      getRawInput: async () => (input = parseInput(body)),
    }).then(
      (data: unknown) => send(config, res, 200, {}, { result: { data } }),
      (cause: unknown) => {
        const error = getTRPCErrorFromUnknown(cause);
        hooks.onError(error, req);
        const shape = getErrorShape({ config, error, type: 'mutation', path, input, ctx });
        const status = getHTTPStatusCode({ error: shape }, [error]);
        send(config, res, status, hooks.errorHeaders(error), { error: shape });
      },
    );
  };
}

function parseInput(body: string): unknown {
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch (cause) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: cause instanceof Error ? cause.message : 'Invalid input',
      cause,
    });
  }
}

function fastProcedure(
  router: AnyRouter,
  req: Parameters<RequestHandler>[0],
): AnyProcedure | undefined {
  if (req.method !== 'POST' || req.url.includes('?')) return undefined;
  const headers = req.headers;
  if (!headers['content-type']?.startsWith('application/json')) return undefined;
  if (headers['trpc-accept'] !== undefined || typeof req.body !== 'string') return undefined;
  const procedure = Object.hasOwn(router._def.procedures, req.url.slice(1))
    ? (router._def.procedures as Record<string, AnyProcedure>)[req.url.slice(1)]
    : undefined;
  return procedure?._def.type === 'mutation' ? procedure : undefined;
}

function send(
  config: AnyRouter['_def']['_config'],
  res: Parameters<RequestHandler>[1],
  status: number,
  headers: Record<string, string>,
  message: unknown,
): void {
  const json = JSON.stringify(transformTRPCResponse(config, message as never));
  res.writeHead(status, {
    ...headers,
    vary: 'trpc-accept, accept',
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}
