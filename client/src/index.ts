// tRPC's declarations use Disposable and AsyncDisposable (ES2026's explicit
// resource management) without naming the lib; this brings it to a consumer
// whose \`lib\` stops earlier, so the package type-checks without skipLibCheck.
/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The User Profile Service's client: `createClient` gives a typed tRPC client
 * for every procedure, live subscriptions included, and the package ships the
 * types a client needs (`AppRouter`, inputs and outputs, the REST `paths`
 * generated from openapi.json). Nothing of the service's own dependencies.
 */
import {
  createTRPCClient,
  createWSClient,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
  wsLink,
} from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { EventSource as FetchEventSource } from 'eventsource';
import type { AppRouter, Issue } from '#app-router';

/** `Issue`: one problem of a VALIDATION_FAILED error (`error.data?.issues`). */
export type { AppRouter, Issue };
/** Every procedure's input, by name: `RouterInputs['updateUser']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Every procedure's output, by name: `RouterOutputs['me']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
/** The REST API's types (openapi-typescript), for openapi-fetch or any typed fetch. */
export type { components, operations, paths, webhooks } from './openapi-types.js';
/** A failed call: `error.data?.errorCode` is the contract's code (docs/CONTRACT.md, Errors). */
export { TRPCClientError };

/** A bearer token, or a function giving the current one (called for each request and each stream). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface ClientOptions {
  /** Where the service is, e.g. `https://api.fans.example`; calls go to `<url>/trpc`. */
  url: string;
  /** The caller's token: a fan's, or a service's client-credentials token. */
  token?: TokenSource;
  /**
   * The EventSource for subscriptions. Default: the `eventsource` package's,
   * built on fetch, which works on Node 20 and 22 (neither has a global
   * EventSource without `--experimental-eventsource`) and in browsers.
   */
  EventSource?: typeof globalThis.EventSource;
  /** The fetch for queries and mutations; default: the global one. */
  fetch?: typeof globalThis.fetch;
  /**
   * How subscriptions travel: `websocket` (one connection for all of them,
   * tRPC's wsLink) or `sse` (Server-Sent Events, one request each). Default:
   * `websocket` where a WebSocket exists (`WebSocket` below, or the global
   * one: browsers, Node 22), else `sse` (Node 20 has no global WebSocket:
   * pass `WebSocket` from the `ws` package to use it there).
   */
  transport?: 'websocket' | 'sse';
  /** The WebSocket class for `websocket`; default: the global one. */
  WebSocket?: typeof globalThis.WebSocket;
}

/**
 * A typed tRPC client: `api.me.query()`, `api.updateUser.mutate({...})`,
 * `api.myEvents.subscribe(input, { onData })`. Queries and mutations go over
 * HTTP with `Authorization: Bearer <token>`; subscriptions over one WebSocket
 * (or Server-Sent Events: `transport`), the token as a connection parameter,
 * and a dropped connection resumes each stream from its last event id by
 * itself. The WebSocket is open only while a subscription is.
 */
export function createClient(options: ClientOptions) {
  const url = `${options.url.replace(/\/+$/, '')}/trpc`;
  const token = async () =>
    typeof options.token === 'function' ? await options.token() : options.token;
  const connectionParams = async () => {
    const current = await token();
    return current ? { token: current } : null;
  };
  const WebSocketClass = options.WebSocket ?? globalThis.WebSocket;
  const transport = options.transport ?? (WebSocketClass ? 'websocket' : 'sse');
  if (transport === 'websocket' && !WebSocketClass) {
    throw new Error('No WebSocket here (Node 20): pass `WebSocket` (the ws package) or use `sse`');
  }
  // Lazy: connected while a subscription is open, closed once none is.
  const socket =
    transport === 'websocket'
      ? createWSClient({
          url: url.replace(/^http/, 'ws'),
          WebSocket: WebSocketClass,
          connectionParams,
          lazy: { enabled: true, closeMs: 0 },
        })
      : undefined;
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: socket
          ? wsLink({ client: socket })
          : httpSubscriptionLink({
              url,
              EventSource: options.EventSource ?? FetchEventSource,
              connectionParams,
            }),
        false: httpLink({
          url,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          headers: async () => {
            const current = await token();
            return current ? { authorization: `Bearer ${current}` } : {};
          },
        }),
      }),
    ],
  });
  return trpc;
}

/** What `createClient` returns. */
export type Client = ReturnType<typeof createClient>;
