import type { Request, RequestHandler, Response } from 'express';
import {
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  transformTRPCResponse,
  TRPCError,
  type AnyTRPCRouter,
} from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import { contextFactory, type AppDeps, type Context } from '../trpc/context.js';

/**
 * The common tRPC call — one mutation, not batched, POSTed as a JSON body —
 * answered without the fetch adapter, which turns every Node request into a
 * Fetch `Request` (with an AbortSignal and a body stream) and its `Response`
 * back (docs/PERFORMANCE.md has the measurements).
 *
 * Public tRPC API only: `callTRPCProcedure` runs the procedure as the adapter
 * does (raw input, ctx, path, type), and the answer is written with tRPC's
 * own error shape, transformer and status functions, so the wire format is
 * the adapter's (test/integration/fast-path-parity.test.ts compares them).
 * It runs after the body guard (body limits). Anything else — batches,
 * queries, streaming, other media types — calls `next()` and the adapter
 * answers it, with all of its checks.
 */
export function trpcFastPath(
  deps: AppDeps,
  router: AnyTRPCRouter,
  hooks: {
    onError: (error: TRPCError, req: Request) => void;
    errorHeaders: (error: TRPCError) => Record<string, string>;
  },
): RequestHandler {
  const config = router._def._config;
  const createContext = contextFactory(deps);
  const mutations = fastMutations(router);

  const send = (res: Response, status: number, headers: Record<string, string>, body: unknown) => {
    const json = JSON.stringify(transformTRPCResponse(config, body as never));
    res.writeHead(status, {
      ...headers,
      vary: 'trpc-accept, accept',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
  };

  return (req, res, next) => {
    const path = fastPath(req, mutations);
    if (path === undefined) {
      next();
      return;
    }
    // The body guard has read the body as text, within the body limits.
    const body = req.body as string;
    const ctx: Context = createContext({ req, res });
    let input: unknown;
    callTRPCProcedure({
      router,
      path,
      type: 'mutation',
      ctx,
      batchIndex: 0,
      signal: undefined,
      getRawInput: async () => (input = parseInput(body)),
    }).then(
      (data: unknown) => send(res, 200, {}, { result: { data } }),
      (cause: unknown) => {
        const error = getTRPCErrorFromUnknown(cause);
        hooks.onError(error, req);
        const shape = getTRPCErrorShape({ config, error, type: 'mutation', path, input, ctx });
        const status = getHTTPStatusCode({ error: shape }, [error]);
        send(res, status, hooks.errorHeaders(error), { error: shape });
      },
    );
  };
}

/** The procedure paths the fast path answers: every mutation. */
export function fastMutations(router: AnyTRPCRouter): Set<string> {
  return new Set(
    Object.entries(router._def.procedures as Record<string, { _def: { type: string } }>)
      .filter(([, procedure]) => procedure._def.type === 'mutation')
      .map(([path]) => path),
  );
}

/** As the adapter parses a JSON body: an empty body is no input, a bad one a BAD_REQUEST. */
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

/** The procedure path when the request is a single JSON mutation the fast path answers. */
function fastPath(req: Request, mutations: ReadonlySet<string>): string | undefined {
  if (req.method !== 'POST' || req.url.includes('?')) return undefined;
  const headers = req.headers;
  if (!headers['content-type']?.startsWith('application/json')) return undefined;
  if (headers['trpc-accept'] !== undefined || typeof req.body !== 'string') return undefined;
  const path = req.url.slice(1);
  return mutations.has(path) ? path : undefined;
}
