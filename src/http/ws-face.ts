import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AnyTRPCRouter } from '@trpc/server';
import { applyWSSHandler, jsonEncoder } from '@trpc/server/adapters/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../app-error.js';
import { isSealed, jsonOnce } from '../live/json-once.js';
import { logInternalError, toAppError, toTRPCError } from '../error-mapping.js';
import { SSE_PING_MS, principalOf } from '../trpc/init.js';
import { createContextInner, type AppDeps, type Context } from '../trpc/context.js';
import { writeErrorToSocket } from './client-error.js';
import { TRPC_MOUNT } from './methods.js';

/** The largest message a client sends (a subscription's call, its stop, connection params). */
export const SOCKET_MAX_MESSAGE_BYTES = 16 * 1024;

/**
 * How long after a token's `exp` its connection is closed: its streams end
 * at `exp` with UNAUTHENTICATED (src/live/streams.ts), and this leaves that
 * message time to be written before the close frame.
 */
export const EXPIRY_CLOSE_GRACE_MS = 1_000;

/** The close codes this face uses (4000–4999 are the application's, RFC 6455 §7.4.2). */
export const CLOSE_CODES = {
  /** The token expired: connect again with a fresh one (and lastEventId to resume). */
  tokenExpired: 4401,
  /** The account was deleted: do not reconnect with this identity's old state. */
  accountDeleted: 4404,
  /** The server is shutting down: reconnect (elsewhere), resuming by id. */
  serviceRestart: 1012,
} as const;

/**
 * Stands in for a message's data while its frame is stringified: a string
 * no frame holds otherwise (it carries a random id drawn at start).
 */
const DATA_SLOT = `\u0000data:${randomUUID()}`;
const DATA_SLOT_JSON = JSON.stringify(DATA_SLOT);

interface DataFrame {
  result?: { type?: unknown; id?: unknown; data?: unknown };
}

/**
 * tRPC's JSON encoder, except that a subscription message's data, when it is
 * a frozen message many streams send, is serialised once for all of them
 * (src/live/json-once.ts) and its text set into each connection's frame
 * (whose subscription id is the connection's own). The frame's bytes are
 * what `JSON.stringify` of the whole frame gives.
 */
export const liveEncoder: typeof jsonEncoder = {
  encode(frame) {
    const result = (frame as DataFrame).result;
    if (result?.type !== 'data') return jsonEncoder.encode(frame);
    // A tracked message travels as { id, data }, its id also beside it (result.id).
    const tracked = result.id !== undefined;
    const data = tracked ? (result.data as { data?: unknown }).data : result.data;
    if (!isSealed(data)) return jsonEncoder.encode(frame);
    const slotted = {
      ...(frame as object),
      result: {
        ...result,
        data: tracked ? { ...(result.data as object), data: DATA_SLOT } : DATA_SLOT,
      },
    };
    return JSON.stringify(slotted).replace(DATA_SLOT_JSON, () => jsonOnce(data));
  },
  decode: (data) => jsonEncoder.decode(data),
};

/** setTimeout cannot wait past 2³¹ − 1 ms; a longer wait re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The live subscriptions over a WebSocket at `/trpc`, through tRPC's own
 * WebSocket adapter (`applyWSSHandler`, with `ws`): the same procedures,
 * context, error formatter and `onError` as /trpc over HTTP, one connection
 * carrying any number of the client's subscriptions (tRPC's `wsLink`).
 *
 * - **Auth at connect**: the token (the `token` connection parameter, or the
 *   upgrade's Authorization header) is verified once, when the connection's
 *   context is made; a bad one is answered with tRPC's error and the
 *   connection closed. The connection closes (4401) once the token expires.
 * - **Limits**: the stream limits count each subscription (src/live/hub.ts);
 *   before the handshake, the connections of one client address are held to
 *   LIVE_MAX_STREAMS_PER_IP and all of them to LIVE_MAX_STREAMS (refused with
 *   429 / 503 and Retry-After).
 * - **Account deletion** closes the account's connections (4404) after its
 *   streams ended with NOT_FOUND; **shutdown** closes every connection (1012)
 *   after its streams ended with UNAVAILABLE.
 * - Queries and mutations are refused over it (METHOD_NOT_ALLOWED): they
 *   take HTTP (src/trpc/init.ts).
 */
export function attachLiveSockets(server: Server, deps: AppDeps, router: AnyTRPCRouter): void {
  const { hub } = deps.live;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: SOCKET_MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  const byUser = new Map<string, Set<WebSocket>>();
  const byIp = new Map<string, number>();
  applyWSSHandler({
    wss,
    router,
    createContext: ({ req, res, info }) =>
      connectionContext(deps, req, res, info.connectionParams, byUser),
    // A quiet connection gets tRPC's PING after SSE_PING_MS; one that does not answer is closed.
    keepAlive: { enabled: true, pingMs: SSE_PING_MS, pongWaitMs: 10_000 },
    experimental_encoder: liveEncoder,
    onError: ({ error, ctx }) => {
      logInternalError(ctx?.logger ?? deps.logger, toAppError(error));
    },
  });
  hub.onAccountDeleted((userId) => {
    for (const socket of byUser.get(userId) ?? []) {
      afterStreamsEnded(() => socket.close(CLOSE_CODES.accountDeleted, 'account deleted'));
    }
  });
  hub.onClose(() => {
    for (const socket of wss.clients) {
      afterStreamsEnded(() => socket.close(CLOSE_CODES.serviceRestart, 'server shutdown'));
    }
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused = refusal(deps, req, byIp, wss.clients.size);
    if (refused) {
      writeErrorToSocket(socket, refused);
      return;
    }
    const ip = ipOf(req) ?? '';
    wss.handleUpgrade(req, socket, head, (ws) => {
      byIp.set(ip, (byIp.get(ip) ?? 0) + 1);
      ws.once('close', () => {
        const left = (byIp.get(ip) ?? 1) - 1;
        if (left === 0) byIp.delete(ip);
        else byIp.set(ip, left);
      });
      wss.emit('connection', ws, req);
    });
  });
}

/** Why an upgrade is refused before the handshake, if it is. */
function refusal(
  deps: AppDeps,
  req: IncomingMessage,
  byIp: Map<string, number>,
  open: number,
): AppError | undefined {
  const { hub } = deps.live;
  if ((req.url ?? '/').split('?', 1)[0] !== TRPC_MOUNT) {
    return new AppError('NOT_FOUND', `WebSocket connections are served at ${TRPC_MOUNT} only`);
  }
  if (hub.closed) {
    return new AppError('UNAVAILABLE', 'The server is shutting down; reconnect', {
      retryAfterSeconds: 1,
    });
  }
  const { maxStreams, maxStreamsPerIp } = hub.streamLimits;
  if (open >= maxStreams || !hub.hasRoom('ws')) {
    return new AppError(
      'UNAVAILABLE',
      open >= maxStreams
        ? `This instance holds its limit of ${maxStreams} live connections; retry shortly`
        : 'This instance holds as many live streams as its heap has room for; retry shortly',
      { retryAfterSeconds: 5 },
    );
  }
  const ip = ipOf(req);
  if (maxStreamsPerIp > 0 && ip !== undefined && (byIp.get(ip) ?? 0) >= maxStreamsPerIp) {
    return new AppError(
      'RATE_LIMITED',
      `At most ${maxStreamsPerIp} live connections per client address; close one first`,
      { retryAfterSeconds: 5 },
    );
  }
  return undefined;
}

/**
 * The client's address as Express would see it (`req.ip`: the socket's, or
 * the X-Forwarded-For hop TRUST_PROXY selects): the server's requests are
 * born with the app's request prototype (src/http/app-server.ts).
 */
function ipOf(req: IncomingMessage): string | undefined {
  const ip = (req as IncomingMessage & { ip?: string }).ip;
  return ip ?? req.socket.remoteAddress;
}

/**
 * One connection's context, shared by every call on it: its principal is
 * verified here, once (a refusal is thrown as the procedure error tRPC
 * sends before it closes the connection), and the connection is closed
 * when the token expires.
 */
async function connectionContext(
  deps: AppDeps,
  req: IncomingMessage,
  socket: WebSocket,
  connectionParams: Partial<Record<string, string>> | null | undefined,
  byUser: Map<string, Set<WebSocket>>,
): Promise<Context> {
  const requestId = randomUUID();
  const token = connectionParams?.token;
  let userId: string | undefined;
  const ctx = createContextInner({
    deps,
    transport: 'ws',
    authorization:
      req.headers.authorization ?? (typeof token === 'string' ? `Bearer ${token}` : undefined),
    requestId,
    logger: deps.logger.child({ reqId: requestId, transport: 'ws' }),
    ip: ipOf(req),
    closeConnection: () => socket.terminate(),
    unsentBytes: () => socket.bufferedAmount,
    identify: (who) => {
      if (who.userId === undefined || userId !== undefined) return;
      userId = who.userId;
      const mine = byUser.get(userId) ?? new Set<WebSocket>();
      mine.add(socket);
      byUser.set(userId, mine);
      socket.once('close', () => {
        mine.delete(socket);
        if (mine.size === 0) byUser.delete(who.userId!);
      });
    },
  });
  let principal;
  try {
    principal = await principalOf(ctx);
  } catch (error) {
    throw toTRPCError(toAppError(error));
  }
  closeAt(socket, principal.expiresAt * 1000 + EXPIRY_CLOSE_GRACE_MS);
  return ctx;
}

/** Closes the connection (4401) at `at` (epoch ms), unless it closed before. */
function closeAt(socket: WebSocket, at: number): void {
  const wait = at - Date.now();
  const timer = setTimeout(
    () =>
      wait > MAX_TIMER_MS
        ? closeAt(socket, at)
        : socket.close(CLOSE_CODES.tokenExpired, 'token expired'),
    Math.max(0, Math.min(wait, MAX_TIMER_MS)),
  );
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Runs `close` once the streams the hub just ended have written their error
 * (their generators end within the current turn's promise jobs; tRPC's
 * adapter drops a message once the socket is closing).
 */
function afterStreamsEnded(close: () => void): void {
  setTimeout(close, 50).unref();
}
