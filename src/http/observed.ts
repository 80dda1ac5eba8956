import type { ServerResponse } from 'node:http';

/*
 * What the request line and the request metrics (request-context.ts) learn
 * about a request as it runs, kept in `res.locals.observed`. A module of its
 * own, importing nothing, so the layers that report (the faces, the tRPC
 * context) need not import the request context.
 */

/** What the request line and the request metrics say about one request. */
export interface Observed {
  /** The operation's name (operations.ts). */
  operation: string;
  /** As the client sent it (the method rules route HEAD as GET later). */
  method: string;
  /** Without the query string: a subscription's token may be there. */
  path: string;
  started: number;
  /** The envelope's `code` (or data.errorCode on /trpc) of the first error answered. */
  errorCode?: string;
  userId?: string;
  /** A service token's client id. */
  clientId?: string;
}

export function observedOf(res: ServerResponse): Observed | undefined {
  return (res as ServerResponse & { locals?: { observed?: Observed } }).locals?.observed as
    Observed | undefined;
}

/** Records the error code the request answers with (the first, in a tRPC batch). */
export function noteErrorCode(res: ServerResponse, code: string): void {
  const observed = observedOf(res);
  if (observed) observed.errorCode ??= code;
}

/** Records who the request acts for (the fan's user id, or the service's client id). */
export function noteCaller(res: ServerResponse, who: { userId?: string; clientId?: string }): void {
  const observed = observedOf(res);
  if (observed) Object.assign(observed, who);
}
