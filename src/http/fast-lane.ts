import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import {
  BODY_LIMIT_BYTES,
  bodyParserError,
  jsonMediaTypeError,
  jsonObjectError,
  jsonText,
} from './body.js';

/**
 * The fast lane: in front of the Express app, for the requests that
 * carry the write load — a documented JSON mutation on a fixed REST path
 * (PATCH /api/user, POST /api/user/profile) or a single tRPC mutation — sent
 * the plain way: no Origin header (so no CORS decision), no query string, a
 * JSON media type the API accepts, no Content-Encoding, and a Content-Length
 * of 1 byte to 16 KiB (so no chunked body). Such a request skips Express's
 * chain (its router, helmet's and cors's per-request work, body-parser) and
 * runs the same steps in a row: the chain's own request
 * context, the API's response headers (recorded once from the chain's
 * security middlewares), the chain's
 * per-IP limit, the body rules of src/http/body.ts, and the face's short-cut
 * (rest-fast.ts, trpc-fast.ts). Its errors go to the app's error handler,
 * like the chain's. It returns false for every other request, browsers'
 * included, which then takes the chain.
 * Why: docs/DECISIONS.md ("The fast lane"); that both answer alike:
 * test/integration/fast-path-parity.test.ts.
 */
export function fastLane(parts: {
  /** The Express app whose request and response the lane's steps expect. */
  app: Express;
  /** The app's error handler: the lane's errors are answered as the chain's. */
  errorHandler: ErrorRequestHandler;
  /** The chain's first middleware: request id, logger, the request log line. */
  requestContext: RequestHandler;
  /** Headers every API response carries (recordHeaders of the chain's security middlewares). */
  headers: ReadonlyArray<readonly [string, string]>;
  ipLimit: RequestHandler;
  /** `METHOD path` → procedure of the REST short-cut (fastRoutes). */
  restRoutes: ReadonlyMap<string, string>;
  rest: RequestHandler;
  /** Procedures the tRPC short-cut serves at /trpc/<procedure> (fastMutations). */
  trpcMutations: ReadonlySet<string>;
  trpc: RequestHandler;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (incoming, outgoing) => {
    const face = laneFace(incoming, parts.restRoutes, parts.trpcMutations);
    if (face === undefined) return false;
    // What Express's app.handle gives each request (its request and response
    // prototypes, the cross links, res.locals) and its router's originalUrl:
    // the lane's steps are the chain's own middlewares. The app's server
    // makes requests with those prototypes already (src/http/app-server.ts),
    // so setting them changes nothing there.
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, parts.app.request);
    Object.setPrototypeOf(res, parts.app.response);
    res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = req.url;
    req.fastLane = true;
    const next = (error: unknown) => parts.errorHandler(error, req, res, () => {});
    parts.requestContext(req, res, () => {
      for (const [name, value] of parts.headers) res.setHeader(name, value);
      parts.ipLimit(req, res, (limited?: unknown) => {
        if (limited) {
          next(limited);
          return;
        }
        readBody(req, (error, text) => {
          if (error) {
            next(error);
            return;
          }
          // As body.ts's readers leave it for the short-cuts.
          req.headers['content-type'] = 'application/json';
          // A short-cut never declines what the lane brings it (laneFace asks
          // for more than the short-cuts do); if one did, the chain must not
          // run a second time for the request.
          const declined = () =>
            next(new Error(`the ${face} short-cut declined a fast-lane request`));
          if (face === 'trpc') {
            // As Express's mount at /trpc leaves it for tRPC's handler.
            req.baseUrl = TRPC_MOUNT;
            req.url = req.url.slice(TRPC_MOUNT.length);
            req.body = text;
            parts.trpc(req, res, declined);
            return;
          }
          let body: unknown;
          try {
            body = JSON.parse(text!);
          } catch {
            next(bodyParserError({ type: 'entity.parse.failed' }));
            return;
          }
          const refused = jsonObjectError(body);
          if (refused) {
            next(refused);
            return;
          }
          req.body = body;
          parts.rest(req, res, declined);
        });
      });
    });
    return true;
  };
}

/** Which short-cut a request goes to through the lane, or undefined for the chain. */
function laneFace(
  req: IncomingMessage,
  restRoutes: ReadonlyMap<string, string>,
  trpcMutations: ReadonlySet<string>,
): 'rest' | 'trpc' | undefined {
  const { headers } = req;
  if (headers.origin !== undefined || headers['content-encoding'] !== undefined) return undefined;
  // A Content-Length (Node refuses one beside Transfer-Encoding) within the limit.
  const length = Number(headers['content-length']);
  if (!(length >= 1 && length <= BODY_LIMIT_BYTES)) return undefined;
  if (jsonMediaTypeError(headers['content-type']) !== undefined) return undefined;
  const url = req.url ?? '';
  if (restRoutes.has(`${req.method} ${url}`)) return 'rest';
  if (
    req.method === 'POST' &&
    url.startsWith(`${TRPC_MOUNT}/`) &&
    headers['trpc-accept'] === undefined &&
    trpcMutations.has(url.slice(TRPC_MOUNT.length + 1))
  ) {
    return 'trpc';
  }
  return undefined;
}

/** Where the app mounts tRPC's handler. */
export const TRPC_MOUNT = '/trpc';

/**
 * The body as text, after body.ts's rules for its bytes (jsonText). The
 * length was checked by laneFace, and Node's parser reads exactly that many
 * bytes; a client that goes away before sending them gets no answer.
 */
function readBody(req: IncomingMessage, done: (error: unknown, text?: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', () => {});
  req.on('end', () => {
    let text: string;
    try {
      text = jsonText(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    } catch (error) {
      done(bodyParserError(error));
      return;
    }
    done(undefined, text);
  });
}

/**
 * The headers `middlewares` set on a response to a plain request (no
 * Origin), recorded once at start-up: helmet's and cors's answers do not
 * depend on anything else in such a request. Throws if one of them would not
 * pass the request on at once.
 */
export function recordHeaders(
  middlewares: readonly RequestHandler[],
): ReadonlyArray<readonly [string, string]> {
  const recorded = new Map<string, [string, string]>();
  const res = {
    setHeader(name: string, value: unknown) {
      recorded.set(name.toLowerCase(), [name, String(value)]);
      return res;
    },
    getHeader: (name: string) => recorded.get(name.toLowerCase())?.[1],
    removeHeader: (name: string) => recorded.delete(name.toLowerCase()),
  };
  const req = { method: 'POST', url: '/', headers: {} };
  for (const middleware of middlewares) {
    let passed = false;
    middleware(req as never, res as unknown as ServerResponse as never, (error?: unknown) => {
      if (error) throw error;
      passed = true;
    });
    if (!passed) throw new Error('a security middleware did not pass a plain request on at once');
  }
  return [...recorded.values()];
}
