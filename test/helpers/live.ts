import {
  createTRPCClient,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  type TRPCClient,
} from '@trpc/client';
import { EventSource } from 'eventsource';
import type { AppRouter } from '../../routers/index.js';

/** One Server-Sent Event as a plain reader sees it. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
  /** The `retry:` field (ms an EventSource waits before it reconnects), when the event set one. */
  retry?: string;
}

/**
 * A curl -N style reader: a plain fetch of GET /trpc/<procedure>, the body
 * parsed as text/event-stream by hand (no tRPC client involved).
 */
export interface SseReader {
  status: number;
  headers: Headers;
  /** Every event received so far, in order (pings included). */
  events: SseEvent[];
  /** How many `message` (data) events arrived so far. */
  readonly messages: number;
  /** Resolves once `predicate` holds; it is checked after each chunk read, not per event. */
  until(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves with the first event after index `from` matching `match`. */
  waitFor(
    match: (event: SseEvent) => boolean,
    timeoutMs?: number,
    from?: number,
  ): Promise<SseEvent>;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  let messages = 0;
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { event: 'message', data: '', id: undefined };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon === 0 || line === '') continue;
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event.event = value;
            else if (field === 'data') data.push(value);
            else if (field === 'id') event.id = value;
            else if (field === 'retry') event.retry = value;
          }
          event.data = data.join('\n');
          events.push(event);
          if (event.event === 'message') messages += 1;
        }
        for (const wake of [...waiters]) wake();
      }
    } catch {
      // Aborted by close(), or the connection was cut.
    } finally {
      done = true;
      for (const wake of [...waiters]) wake();
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    events,
    get messages() {
      return messages;
    },
    until(predicate, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate()) {
            cleanup();
            resolve();
          } else if (done) {
            cleanup();
            reject(new Error(`stream ended first after ${messages} messages`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`condition not met in ${timeoutMs} ms (${messages} messages)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    ended,
    close: () => controller.abort(),
    waitFor(match, timeoutMs = 5_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(match);
          if (found) {
            cleanup();
            resolve(found);
          } else if (done) {
            cleanup();
            reject(new Error(`stream ended first; got ${JSON.stringify(events)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The data of the `message` events (tracked or not), parsed. */
export function dataEvents(reader: SseReader): Array<{ id: string | undefined; data: any }> {
  return reader.events
    .filter((event) => event.event === 'message')
    .map((event) => ({ id: event.id, data: JSON.parse(event.data) }));
}

/**
 * The typed tRPC client a TypeScript app would use: queries and mutations
 * over httpLink, subscriptions over httpSubscriptionLink (Server-Sent Events).
 * `auth: 'header'` sends the Authorization header (Node, where EventSource
 * can set headers); `auth: 'connectionParams'` sends the token as a
 * connection parameter, as a browser's EventSource must.
 */
export function liveClient(
  baseUrl: string,
  token: string,
  auth: 'header' | 'connectionParams' = 'connectionParams',
): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url: `${baseUrl}/trpc`,
          EventSource,
          ...(auth === 'connectionParams'
            ? { connectionParams: () => ({ token }) }
            : {
                eventSourceOptions: () => ({
                  fetch: (input: string | URL, init?: RequestInit) =>
                    fetch(input, {
                      ...init,
                      headers: { ...init?.headers, authorization: `Bearer ${token}` },
                    }),
                }),
              }),
        }),
        false: httpLink({
          url: `${baseUrl}/trpc`,
          headers: () => ({ authorization: `Bearer ${token}` }),
        }),
      }),
    ],
  });
}

/** Collects a typed subscription's data and errors, with a way to wait for them. */
export class Collector<T> {
  readonly items: Array<{ id?: string; data: T }> = [];
  readonly states: string[] = [];
  /** The error each connection state carried (null when none), in step with `states`. */
  readonly stateErrors: unknown[] = [];
  error: unknown;
  #waiters = new Set<() => void>();

  onData = (value: unknown) => {
    const tracked = value as { id?: string; data: T };
    this.items.push(
      typeof tracked === 'object' && tracked !== null && 'id' in tracked && 'data' in tracked
        ? tracked
        : { data: value as T },
    );
    this.#wake();
  };
  onError = (error: unknown) => {
    this.error = error;
    this.#wake();
  };
  onConnectionStateChange = (state: { state: string; error?: unknown }) => {
    this.states.push(state.state);
    this.stateErrors.push(state.error ?? null);
    this.#wake();
  };

  #wake() {
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves once `predicate` holds (checked after every item, error and state change). */
  until(predicate: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate()) {
          cleanup();
          resolve();
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `${what} not met in ${timeoutMs} ms; items ${JSON.stringify(this.items)}, error ${String(this.error)}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }
}
