import type { Request, RequestHandler, Response } from 'express';
import {
  callTRPCProcedure,
  getTRPCErrorShape,
  isTrackedEnvelope,
  TRPCError,
  type AnyTRPCRouter,
} from '@trpc/server';
import { streamContextFactory, type AppDeps } from '../trpc/context.js';
import { listProcedures } from '../trpc/procedures.js';
import { errorHeaders, toAppError, toTRPCError } from '../error-mapping.js';

/**
 * How often the shared heartbeat looks for streams that have been silent for
 * the ping interval.
 */
const HEARTBEAT_TICK_MS = 1_000;

/** One open stream, as the shared heartbeat sees it. */
interface OpenStream {
  res: Response;
  /** When the stream last sent anything (epoch ms). */
  lastWriteAt: number;
}

/**
 * The subscriptions of the tRPC face (GET /trpc/<subscription>), served as
 * Server-Sent Events in tRPC's own wire format — `connected`, data events
 * (`id:` for `tracked()` ones), `ping`, `serialized-error`, `return` — so
 * httpSubscriptionLink and a plain EventSource read them as they read the
 * adapter's.
 *
 * Why not the adapter: an open stream held by tRPC's fetch adapter costs
 * about 75 KB of heap (a Fetch Request and Response, five Web Streams piped
 * into each other, per-stream ping timers and abort signals), which caps an
 * instance at a few thousand streams; here a stream is the Node response
 * and the procedure's iterator (docs/LIVE.md, Capacity; docs/DECISIONS.md).
 *
 * Public tRPC API only: `callTRPCProcedure` runs the procedure exactly as
 * the adapter does (middlewares, input and output parsers), errors take
 * tRPC's shape through the one errorFormatter. Everything that is not a GET
 * of a subscription (and a malformed `connectionParams`, which the adapter
 * answers itself) goes on to the adapter.
 *
 * The procedure runs before anything is written, so a refusal (limits, an
 * expired token) answers `200 text/event-stream` with `connected` and the
 * `serialized-error`, plus the error's headers (`Retry-After`, …) and an SSE
 * `retry:` field that makes an EventSource wait that long before it
 * reconnects.
 */
export function subscriptionStreams(
  deps: AppDeps,
  router: AnyTRPCRouter,
  hooks: { onError: (error: TRPCError, req: Request) => void },
): RequestHandler {
  const config = router._def._config;
  const pingMs = config.sse?.ping?.enabled ? (config.sse.ping.intervalMs ?? 1_000) : undefined;
  const connected = frame({ event: 'connected', data: JSON.stringify(config.sse?.client ?? {}) });
  const createContext = streamContextFactory(deps);
  const subscriptions = new Set(
    listProcedures(router)
      .filter((procedure) => procedure.kind === 'subscription')
      .map((procedure) => procedure.path),
  );

  // One heartbeat for every open stream instead of a timer per stream.
  const open = new Set<OpenStream>();
  let heartbeat: NodeJS.Timeout | undefined;
  const ping = frame({ event: 'ping', data: '' });
  const beat = () => {
    const now = Date.now();
    for (const stream of open) {
      if (now - stream.lastWriteAt >= pingMs!) {
        stream.lastWriteAt = now;
        stream.res.write(ping);
      }
    }
  };
  const track = (stream: OpenStream) => {
    if (pingMs === undefined) return;
    open.add(stream);
    heartbeat ??= setInterval(beat, Math.min(HEARTBEAT_TICK_MS, pingMs)).unref();
  };
  const untrack = (stream: OpenStream) => {
    open.delete(stream);
    if (open.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
  };

  return (req, res, next) => {
    const path = subscriptionPath(req, subscriptions);
    if (path === undefined) {
      next();
      return;
    }
    const url = new URL(req.originalUrl, 'http://localhost');
    const connectionParams = parseConnectionParams(url.searchParams.get('connectionParams'));
    if (connectionParams === false) {
      next();
      return;
    }
    const lastEventId =
      req.headers['last-event-id']?.toString() ??
      url.searchParams.get('lastEventId') ??
      url.searchParams.get('Last-Event-Id');
    const rawInput = url.searchParams.get('input');
    const ctx = createContext({ req, res, connectionParams });
    const aborted = new AbortController();
    res.once('close', () => aborted.abort());
    let input: unknown;
    const shape = (error: TRPCError) =>
      getTRPCErrorShape({ config, error, type: 'subscription', path, input, ctx: undefined });

    callTRPCProcedure({
      router,
      path,
      type: 'subscription',
      ctx,
      batchIndex: 0,
      signal: aborted.signal,
      getRawInput: async () => (input = withLastEventId(parseInput(rawInput), lastEventId)),
    }).then(
      (iterable: unknown) => {
        res.writeHead(200, SSE_HEADERS);
        const stream: OpenStream = { res, lastWriteAt: Date.now() };
        res.write(connected);
        track(stream);
        void pump(stream, (iterable as AsyncIterable<unknown>)[Symbol.asyncIterator](), {
          serialize: (value) => config.transformer.output.serialize(value),
          lastEventId,
          fail: (cause) => {
            const error = asTRPCError(cause);
            hooks.onError(error, req);
            return errorFrames(error, shape(error));
          },
        }).finally(() => {
          untrack(stream);
          res.end();
        });
      },
      (cause: unknown) => {
        const error = asTRPCError(cause);
        hooks.onError(error, req);
        res.writeHead(200, { ...SSE_HEADERS, ...errorHeaders(toAppError(error)) });
        res.end(connected + errorFrames(error, shape(error)));
      },
    );
  };
}

/** tRPC's SSE response headers, and its Vary. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
  vary: 'trpc-accept, accept',
} as const;

/**
 * The subscription a request names, found as tRPC's Express adapter finds a
 * procedure (the path after the mount, URL-decoded); undefined for anything
 * else, which the adapter answers. A batch cannot carry a subscription.
 */
function subscriptionPath(req: Request, subscriptions: Set<string>): string | undefined {
  if (req.method !== 'GET' || req.query.batch !== undefined) return undefined;
  try {
    const path = decodeURIComponent(req.path.slice(1));
    return subscriptions.has(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** connectionParams as tRPC reads them: null when absent, false when not an object of strings. */
function parseConnectionParams(text: string | null): Record<string, string> | null | false {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null) return null;
    if (typeof parsed !== 'object' || Array.isArray(parsed)) return false;
    const values = Object.values(parsed as Record<string, unknown>);
    return values.every((value) => typeof value === 'string')
      ? (parsed as Record<string, string>)
      : false;
  } catch {
    return false;
  }
}

function parseInput(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: cause instanceof Error ? cause.message : 'Invalid input',
      cause,
    });
  }
}

/** As tRPC does for subscriptions: the Last-Event-ID an EventSource sends back joins the input. */
function withLastEventId(input: unknown, lastEventId: string | null): unknown {
  if (!lastEventId) return input;
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    return { ...input, lastEventId };
  }
  return input ?? { lastEventId };
}

/**
 * The error a stream ends with, with its contract code: an AppError thrown
 * while the stream runs has not passed the procedure's middleware, which
 * wraps the ones thrown while it opens.
 */
function asTRPCError(cause: unknown): TRPCError {
  if (cause instanceof TRPCError) return cause;
  return toTRPCError(toAppError(cause));
}

/**
 * The `serialized-error` event; with a `retry:` field when the error says
 * when to come back, so an EventSource reconnects then.
 */
function errorFrames(error: TRPCError, shape: unknown): string {
  const retryAfter = toAppError(error).retryAfterSeconds;
  return frame({
    event: 'serialized-error',
    data: JSON.stringify(shape),
    ...(retryAfter !== undefined && { retryMs: Math.ceil(retryAfter) * 1000 }),
  });
}

/** One event as tRPC's SSE producer writes it (which never sets `retry:`). */
function frame(event: { event?: string; data: string; id?: string; retryMs?: number }): string {
  return (
    (event.retryMs === undefined ? '' : `retry: ${event.retryMs}\n`) +
    (event.event === undefined ? '' : `event: ${event.event}\n`) +
    `data: ${event.data}\n` +
    (event.id === undefined ? '' : `id: ${event.id}\n`) +
    '\n\n'
  );
}

/**
 * Writes every value of the procedure's iterator, as fast as the socket
 * drains: while it is full, the iterator is not asked for more, so the
 * stream's inbox fills and a reader that stops reading is dropped
 * (src/live/hub.ts). Ends with `return` when the iterator does, with the
 * error's frames when it throws, quietly when it was aborted (the client
 * went away, or the stream was cut off).
 */
async function pump(
  stream: OpenStream,
  iterator: AsyncIterator<unknown>,
  options: {
    serialize: (value: unknown) => unknown;
    lastEventId: string | null;
    fail: (cause: unknown) => string;
  },
): Promise<void> {
  const { res } = stream;
  // The id the client's EventSource holds: an event without one would make
  // it forget it, so such an event clears it and a `restore-id` sets it back.
  let lastEventId =
    options.lastEventId && !/[\0\n\r]/.test(options.lastEventId) ? options.lastEventId : null;
  try {
    for (;;) {
      const result = await iterator.next();
      let chunk: string;
      if (result.done) {
        chunk = frame({ event: 'return', data: '' });
      } else if (isTrackedEnvelope(result.value)) {
        const [id, data] = result.value;
        lastEventId = id;
        chunk = frame({ id, data: JSON.stringify(options.serialize(data)) });
      } else {
        const data = JSON.stringify(options.serialize(result.value));
        chunk =
          lastEventId === null
            ? frame({ data })
            : frame({ data, id: '' }) + frame({ event: 'restore-id', data: '', id: lastEventId });
      }
      stream.lastWriteAt = Date.now();
      const flowing = res.write(chunk);
      if (result.done || res.destroyed) return;
      if (!flowing) await drained(res);
    }
  } catch (cause) {
    if (!isAbortError(cause) && !res.destroyed) res.write(options.fail(cause));
  } finally {
    await iterator.return?.().catch(() => {});
  }
}

function isAbortError(cause: unknown): boolean {
  return (
    typeof cause === 'object' && cause !== null && 'name' in cause && cause.name === 'AbortError'
  );
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
