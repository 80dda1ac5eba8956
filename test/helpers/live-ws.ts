import { createTRPCClient, createWSClient, httpLink, splitLink, wsLink } from '@trpc/client';
import type { TRPCClient } from '@trpc/client';
import { WebSocket } from 'ws';
import type { AppRouter } from '../../routers/index.js';

/**
 * The typed tRPC client over the WebSocket: subscriptions over wsLink (one
 * connection, the token as a connection parameter), queries and mutations
 * over httpLink. `close()` ends the connection for good; `drop()` cuts the
 * current one as a network failure would (wsLink reconnects).
 */
export function wsLiveClient(
  baseUrl: string,
  token: string | (() => string),
): { client: TRPCClient<AppRouter>; close: () => Promise<void>; drop: () => void } {
  const current = () => (typeof token === 'function' ? token() : token);
  const wsClient = createWSClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/trpc`,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    connectionParams: () => ({ token: current() }),
    retryDelayMs: () => 100,
  });
  const client = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: wsLink({ client: wsClient }),
        false: httpLink({
          url: `${baseUrl}/trpc`,
          headers: () => ({ authorization: `Bearer ${current()}` }),
        }),
      }),
    ],
  });
  return {
    client,
    close: () => wsClient.close(),
    drop: () => (wsClient.connection?.ws as unknown as WebSocket | undefined)?.terminate(),
  };
}

/** A message the server sent on a raw connection, parsed (PING kept as the string). */
export type WireMessage = Record<string, any> | 'PING';

/**
 * A raw WebSocket to /trpc speaking tRPC's wire format by hand: what the
 * server sends, when it closed and with which code.
 */
export interface RawSocket {
  socket: WebSocket;
  messages: WireMessage[];
  /** The upgrade's refusal, when the server answered the handshake with an HTTP error. */
  refusal: Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>;
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
  subscribe(id: number, path: string, input?: unknown, lastEventId?: string): void;
  waitFor(match: (message: WireMessage) => boolean, timeoutMs?: number): Promise<WireMessage>;
  close(): void;
}

export function openRawSocket(
  baseUrl: string,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<RawSocket> {
  const params = options.token === undefined ? '' : '?connectionParams=1';
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/trpc${params}`, {
    headers: options.headers,
  });
  const messages: WireMessage[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    const text = data.toString();
    messages.push(text === 'PING' ? 'PING' : (JSON.parse(text) as Record<string, any>));
    for (const wake of [...waiters]) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const wake of [...waiters]) wake();
    });
  });
  const refusal = new Promise<{ status: number; headers: Record<string, any> }>((resolve) => {
    socket.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.resume();
      socket.terminate();
    });
  });
  socket.on('error', () => {
    // Refused or cut: `refusal` / `closed` say how.
  });
  const raw: RawSocket = {
    socket,
    messages,
    refusal,
    closed,
    send: (message) => socket.send(JSON.stringify(message)),
    subscribe: (id, path, input, lastEventId) =>
      raw.send({
        id,
        method: 'subscription',
        params: { path, input, ...(lastEventId === undefined ? {} : { lastEventId }) },
      }),
    waitFor: (match, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found) {
            cleanup();
            resolve(found);
          } else if (socket.readyState === WebSocket.CLOSED) {
            cleanup();
            reject(new Error(`closed first; got ${JSON.stringify(messages)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages)}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () => socket.close(),
  };
  return new Promise((resolve) => {
    socket.once('open', () => {
      if (options.token !== undefined) {
        raw.send({ method: 'connectionParams', data: { token: options.token } });
      }
      resolve(raw);
    });
    socket.once('unexpected-response', () => resolve(raw));
    socket.once('close', () => resolve(raw));
  });
}

/** The data messages (`result.type` "data") of subscription `id`, in order. */
export function dataOf(raw: RawSocket, id: number): Array<{ id?: string; data: any }> {
  return raw.messages
    .filter(
      (m): m is Record<string, any> => m !== 'PING' && m.id === id && m.result?.type === 'data',
    )
    .map((m) => (m.result.id === undefined ? { data: m.result.data } : m.result.data));
}
