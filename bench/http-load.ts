/**
 * The bench's own load code (node:http, keep-alive), for what wrk cannot do:
 *
 * - `fixedCount`: exactly N requests, C at a time (bench/profile.ts profiles
 *   a known number of requests);
 * - `openLoop`: requests started at a fixed rate whatever the answers do
 *   (the latency a fan feels when the service falls behind), each latency
 *   measured from when its request was due, not from when it was sent, so a
 *   stall counts for every request it delays (no coordinated omission).
 *
 * The requests are bench/load.lua's: a random pooled user with a profile
 * change, or for `fresh` each user once, in order, with an onboarding body.
 */
import http from 'node:http';
import type { Kind } from './settings.js';

export interface BenchUser {
  token: string;
  handle: string;
}

export interface LoadTarget {
  /** The server's base URL (http://127.0.0.1:port). */
  url: string;
  method: string;
  path: string;
  kind: Kind;
  users: readonly BenchUser[];
}

interface Answer {
  status: number;
}

function requester(target: LoadTarget, sockets: number) {
  const { hostname, port } = new URL(target.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  let next = 0;
  const send = (): Promise<Answer> => {
    let user: BenchUser;
    let body: string;
    if (target.kind === 'fresh') {
      user = target.users[next++ % target.users.length]!;
      body = JSON.stringify({
        name: `Fan ${next}`,
        handle: user.handle,
        favoriteTeam: 'Arsenal',
        location: 'London',
      });
    } else {
      user = target.users[Math.floor(Math.random() * target.users.length)]!;
      body =
        `{"name":"Fan ${Math.floor(Math.random() * 1e6)}",` +
        `"location":"City ${Math.floor(Math.random() * 1000)}"}`;
    }
    return new Promise((resolve) => {
      const req = http.request(
        {
          agent,
          hostname,
          port,
          method: target.method,
          path: target.path,
          headers: {
            authorization: `Bearer ${user.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve({ status: res.statusCode ?? 0 }));
          res.once('error', () => resolve({ status: 0 }));
        },
      );
      req.once('error', () => resolve({ status: 0 }));
      req.end(body);
    });
  };
  return { send, close: () => agent.destroy() };
}

const ok = (status: number) => status >= 200 && status < 300;

/** `count` requests, `concurrency` in flight at a time; resolves when all are answered. */
export async function fixedCount(
  target: LoadTarget,
  count: number,
  concurrency: number,
): Promise<{ requests: number; errors: number; seconds: number }> {
  const { send, close } = requester(target, concurrency);
  let started = 0;
  let errors = 0;
  const begin = performance.now();
  const worker = async () => {
    while (started < count) {
      started += 1;
      if (!ok((await send()).status)) errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  close();
  return { requests: count, errors, seconds: (performance.now() - begin) / 1000 };
}

export interface OpenLoopResult {
  rate: number;
  seconds: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** How far behind its schedule the generator itself started requests, at worst (ms). */
  generatorLagMs: number;
}

/**
 * Starts `rate` requests per second for `seconds`, on up to `sockets`
 * connections, and reports percentiles of latency from each request's due
 * time. Requests still unanswered 10 s after the last was due count as errors.
 */
export async function openLoop(
  target: LoadTarget,
  rate: number,
  seconds: number,
  sockets = 512,
): Promise<OpenLoopResult> {
  const { send, close } = requester(target, sockets);
  const total = Math.round(rate * seconds);
  // Unanswered requests stay Infinity: they are the slowest of all.
  const latencies = new Float64Array(total).fill(Infinity);
  let answered = 0;
  let errors = 0;
  let lag = 0;
  const begin = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total;) {
    const now = performance.now();
    // Start every request that is due by now; each is timed from when it was due.
    for (; i < total && begin + (i * 1000) / rate <= now; i++) {
      const due = begin + (i * 1000) / rate;
      lag = Math.max(lag, now - due);
      const index = i;
      pending.push(
        send().then(({ status }) => {
          latencies[index] = performance.now() - due;
          answered += 1;
          if (!ok(status)) errors += 1;
        }),
      );
    }
    if (i < total) {
      const wait = begin + (i * 1000) / rate - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    }
  }
  await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  close();
  const sorted = Float64Array.from(latencies.subarray(0, total)).sort();
  const at = (q: number) => sorted[Math.min(total - 1, Math.floor(q * total))] ?? NaN;
  return {
    rate,
    seconds,
    requests: total,
    errors: errors + (total - answered),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    p999Ms: at(0.999),
    maxMs: sorted[total - 1] ?? NaN,
    generatorLagMs: lag,
  };
}
