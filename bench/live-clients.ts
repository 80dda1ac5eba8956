/**
 * The clients of `npm run bench:live` (bench/live.ts): stream readers over
 * SSE (a raw http request) and over the WebSocket (a raw `ws` socket speaking
 * tRPC's wire format), the background PATCH load, and the small helpers.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, type Agent, type ClientRequest } from 'node:http';
import { Agent as Dispatcher, fetch as clientFetch } from 'undici';
import { WebSocket } from 'ws';
import { errorText } from './events-post.js';

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** The heap_size_limit a node process started with `--max-old-space-size=mb` has. */
export function heapSizeLimit(mb: number): number {
  const probe = spawnSync(process.execPath, [
    `--max-old-space-size=${mb}`,
    '-p',
    'require("node:v8").getHeapStatistics().heap_size_limit',
  ]);
  return Number(probe.stdout.toString().trim());
}

export interface Stream {
  close(): void;
  /** The response's Retry-After: set when the stream was refused. */
  retryAfter: string | undefined;
}

/**
 * A plain SSE reader on a raw http request from `localAddress`: resolves once
 * the stream is open (`connected`), or refused (a Retry-After header), and
 * calls `onEvent` with each event's data.
 */
export function openStream(
  url: string,
  token: string,
  localAddress: string,
  agent: Agent,
  onEvent: (data: string) => void,
  procedure = 'myEvents',
): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined = undefined;
    req = request(
      `${url}/trpc/${procedure}`,
      {
        agent,
        localAddress,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        const retryAfter = res.headers['retry-after']?.toString();
        if (retryAfter !== undefined) {
          res.resume();
          resolve({ close: () => req?.destroy(), retryAfter });
          return;
        }
        let buffer = '';
        let connected = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.startsWith('event: connected')) {
              if (!connected) resolve({ close: () => req?.destroy(), retryAfter: undefined });
              connected = true;
            } else if (!block.startsWith('event:')) {
              const data = block.split('\n').find((line) => line.startsWith('data: '));
              if (data) onEvent(data.slice(6));
            }
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** A request as the bench's HTTP client sends it, and what it reads of the answer. */
export type HttpSend = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

/** Keep-alive connections the bench's HTTP client holds to each instance at most. */
export const HTTP_CONNECTIONS = 32;

/**
 * The bench's HTTP client for what it sends the instances while the streams
 * are open (the awarding writes of `--instances 2`, the background
 * PATCHes): keep-alive connections, at most `connections` to each instance,
 * requests beyond them waiting in this process for one. Unbounded (fetch's
 * default), every request that finds each connection busy opens another: a
 * paced run's writes outrunning the instances opened hundreds a second to
 * services whose event loops were busy with their streams, their listen
 * backlogs (511) overflowed, the kernel dropped the SYNs
 * (`TcpExtListenOverflows`), and a connection whose SYN retransmissions
 * outlasted the client's 10 s connect timeout failed the write with
 * `fetch failed` (docs/PERFORMANCE.md, "Live streams and webhooks").
 */
export function httpClient(connections = HTTP_CONNECTIONS): {
  send: HttpSend;
  close(): Promise<void>;
} {
  const dispatcher = new Dispatcher({ connections });
  return {
    send: (url, init) => clientFetch(url, { ...init, dispatcher }),
    close: () => dispatcher.close(),
  };
}

/** Sends `rps` PATCH requests per second that award nothing, until stopped; counts answers. */
export function backgroundLoad(
  base: string,
  tokens: string[],
  rps: number,
  send: HttpSend = fetch,
) {
  const counts = { sent: 0, ok: 0, failed: 0, firstError: null as string | null };
  if (rps <= 0 || tokens.length === 0) return { counts, stop: async () => {} };
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const token = tokens[counts.sent % tokens.length]!;
    counts.sent += 1;
    const done: Promise<void> = send(`${base}/api/user`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ location: `Town ${counts.sent % 97}` }),
    })
      .then((response) => {
        if (response.ok) counts.ok += 1;
        else counts.failed += 1;
        return response.text();
      })
      .then(
        () => {},
        (error: unknown) => {
          counts.failed += 1;
          counts.firstError ??= errorText(error);
        },
      )
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  }, 1000 / rps);
  return {
    counts,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

/**
 * A stream over the WebSocket: one connection from `localAddress` with one
 * subscription (`procedure`, `input`), the token in the upgrade's
 * Authorization header. Resolves once the subscription started, or refused
 * (the upgrade answered with Retry-After, or the subscription with an
 * error); calls `onEvent` with each data frame's text. Answers tRPC's PING.
 */
export function openSocketStream(
  url: string,
  token: string,
  localAddress: string,
  onEvent: (data: string) => void,
  procedure = 'myEvents',
  input?: unknown,
): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/trpc`, {
      localAddress,
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
    });
    const close = () => socket.terminate();
    let started = false;
    socket.on('unexpected-response', (_req, res) => {
      const retryAfter = res.headers['retry-after']?.toString();
      res.resume();
      socket.terminate();
      if (retryAfter !== undefined) resolve({ close, retryAfter });
      else reject(new Error(`the upgrade answered ${res.statusCode}`));
    });
    socket.on('open', () => {
      socket.send(
        JSON.stringify({ id: 1, method: 'subscription', params: { path: procedure, input } }),
      );
    });
    socket.on('message', (data) => {
      const text = data.toString();
      if (text === 'PING') {
        socket.send('PONG');
        return;
      }
      if (!started) {
        const message = JSON.parse(text) as {
          result?: { type: string };
          error?: { data?: unknown };
        };
        if (message.error) {
          socket.terminate();
          resolve({ close, retryAfter: '5' });
          return;
        }
        if (message.result?.type === 'started') {
          started = true;
          resolve({ close, retryAfter: undefined });
          return;
        }
      }
      onEvent(text);
    });
    socket.on('error', (error) => {
      if (!started) reject(error);
    });
  });
}
