import { request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HEAP_RESERVED_BYTES,
  STREAM_HEAP_BYTES,
  streamCapacity,
  streamHeapBudget,
} from '../../../src/live/capacity.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';
import { uniqueSubject } from '../../helpers/test-app.js';
import { openRawSocket, type RawSocket } from '../../helpers/live-ws.js';

/**
 * How many streams one instance holds: a service process whose heap is
 * capped holds streams up to what its heap has room for, refuses the next
 * ones with a retryable error and Retry-After, and keeps serving, with
 * events still reaching the streams it holds. Before, the default limit
 * (5,000) was far above what a 128 MB heap holds at ~85 KB a stream: the
 * process died of heap exhaustion at ~1,165 streams.
 */

/** A stream as a plain reader sees it: its response headers, and what it said so far. */
interface RawStream {
  headers: IncomingHttpHeaders;
  body: () => string;
  ended: Promise<void>;
  close(): void;
}

/** GET /trpc/myEvents from `localAddress` (any 127/8 address is the loopback interface). */
function openRaw(url: string, token: string, localAddress: string): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    let body = '';
    let req: ClientRequest | undefined = undefined;
    req = request(
      `${url}/trpc/myEvents`,
      { localAddress, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        res.setEncoding('utf8');
        const ended = new Promise<void>((done) => res.once('close', done));
        res.on('data', (chunk: string) => (body += chunk));
        resolve({ headers: res.headers, body: () => body, ended, close: () => req?.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('capacity', () => {
  it('the default limit is what the heap holds, after a reserve for everything else', () => {
    const mb = 1024 * 1024;
    expect(streamCapacity(176 * mb)).toBe(
      Math.floor((176 * mb - HEAP_RESERVED_BYTES) / STREAM_HEAP_BYTES.sse),
    );
    // --max-old-space-size=128 (`npm start`): heap_size_limit 176 MB.
    expect(streamCapacity(176 * mb)).toBe(853);
    // Streams held by tRPC's adapter: 10,000 need a heap of a gigabyte
    // (--max-old-space-size=1024: heap_size_limit 1,072 MB), 512 MB hold under 5,000.
    expect(streamCapacity(1072 * mb)).toBeGreaterThan(10_000);
    expect(streamCapacity(560 * mb)).toBeLessThan(5_000);
    expect(streamCapacity(HEAP_RESERVED_BYTES)).toBe(1);
  });

  it('over the WebSocket a stream takes a third of an SSE stream’s share: 10,000 fit a 448 MB heap', () => {
    const mb = 1024 * 1024;
    expect(STREAM_HEAP_BYTES.ws * 3).toBe(STREAM_HEAP_BYTES.sse);
    expect(streamCapacity(176 * mb, 'ws')).toBe(2_560);
    // --max-old-space-size=448 (issue 40's 512 MB of RSS): heap_size_limit 496 MB.
    expect(streamCapacity(496 * mb, 'ws')).toBeGreaterThan(10_000);
    expect(streamCapacity(496 * mb, 'sse')).toBeLessThan(5_000);
  });

  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it(
    'a process with a 96 MB heap holds streams up to its capacity under writes, refuses the next with UNAVAILABLE and Retry-After, and stays up',
    { timeout: 300_000 },
    async () => {
      const issuer: TokenIssuer = await startTokenIssuer();
      cleanup.push(() => issuer.stop());
      const own: TestDatabase = await createTestDatabase();
      cleanup.push(() => own.destroy());
      // PGlite is one process at a time: the service process takes the data over.
      if (testDbKind === 'pglite') await own.close();
      const service: ServerProcess = await startServerProcess({
        DATABASE_URL: own.databaseUrl,
        DATA_DIR: own.dataDir,
        AUTH_ISSUER: issuer.issuer,
        AUTH_JWKS_URL: issuer.jwksUrl,
        RATE_LIMIT_PER_IP: '0',
        RATE_LIMIT_PER_USER: '0',
        // 96, not 64: with the embedded database in the same process, 64 MB
        // left too little beside the streams for the writes (it ran out in CI).
        NODE_OPTIONS: '--max-old-space-size=96',
      });
      cleanup.push(async () => {
        if (service.child.exitCode === null) await service.stop('SIGKILL');
      });
      // heap_size_limit of a 96 MB old space: 144 MB, so 512 streams.
      const capacity = streamCapacity(144 * 1024 * 1024);
      const perUser = 5;
      // 60 streams per address, under the default per-address limit of 100.
      const address = (n: number) => `127.0.0.${2 + Math.floor(n / 60)}`;
      const tokens = await Promise.all(
        Array.from({ length: Math.ceil((capacity + 1) / perUser) }, () =>
          issuer.sign(uniqueSubject('capacity')),
        ),
      );

      // Up to the capacity, 25 at a time: every one is held...
      const held: RawStream[] = [];
      for (let n = 0; n < capacity; n += 25) {
        const batch = Array.from({ length: Math.min(25, capacity - n) }, (_, i) => n + i);
        held.push(
          ...(await Promise.all(
            batch.map((k) => openRaw(service.url, tokens[Math.floor(k / perUser)]!, address(k))),
          )),
        );
        expect(service.child.exitCode, service.stderr()).toBeNull();
      }
      // (a refusal is answered before anything is streamed, with its Retry-After)
      expect(held.filter((stream) => stream.headers['retry-after'] !== undefined)).toEqual([]);
      // ...and the next is refused.
      const refused = await openRaw(
        service.url,
        tokens[Math.floor(capacity / perUser)]!,
        address(capacity),
      );
      expect(refused.headers['retry-after']).toBe('5');
      await refused.ended;
      const error = /event: serialized-error\ndata: (.*)\n/.exec(refused.body())?.[1];
      expect(JSON.parse(error!).data).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        errorCode: 'UNAVAILABLE',
        httpStatus: 503,
      });

      // Writes while the streams are held: their events reach the streams.
      const writers = tokens.slice(0, 20);
      for (const token of writers) {
        const response = await fetch(`${service.url}/api/user/profile`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ favoriteTeam: 'Capacity FC' }),
        });
        expect(response.status).toBe(201);
      }
      // Each writer's five streams carry its events.
      for (const stream of held.slice(0, writers.length * perUser)) {
        await expect
          .poll(() => stream.body().includes('"rank_changed"'), { timeout: 30_000 })
          .toBe(true);
      }
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      expect(service.child.exitCode).toBeNull();

      // The heap is the limit, each stream taking its transport's share: full
      // of SSE streams, what is left of the budget holds this many WebSocket
      // streams and no more...
      const budget = streamHeapBudget(112 * 1024 * 1024);
      const left = Math.floor((budget - capacity * STREAM_HEAP_BYTES.sse) / STREAM_HEAP_BYTES.ws);
      const sockets: RawSocket[] = [];
      const refusedSocket = async (token: string) => {
        const raw = await openRawSocket(service.url, { token });
        expect((await raw.refusal).status).toBe(503);
      };
      /** Opens `count` WebSocket streams, retrying while a closed stream's share is not let go yet. */
      const fill = async (token: string, count: number) => {
        for (let n = 0, tries = 0; n < count;) {
          const raw = await openRawSocket(service.url, { token });
          if (raw.socket.readyState !== raw.socket.OPEN) {
            expect((tries += 1)).toBeLessThan(50);
            await new Promise((resolve) => setTimeout(resolve, 200));
            continue;
          }
          raw.subscribe(1, 'myEvents');
          const answer = await raw.waitFor((m) => m !== 'PING' && m.id === 1);
          expect(answer !== 'PING' && answer.result?.type).toBe('started');
          sockets.push(raw);
          n += 1;
        }
      };
      await fill(await issuer.sign(uniqueSubject('capacity-ws')), left);
      await refusedSocket(await issuer.sign(uniqueSubject('capacity-ws')));
      // ...and one SSE stream's share holds three WebSocket streams.
      held.pop()!.close();
      const wsToken = await issuer.sign(uniqueSubject('capacity-ws'));
      await fill(wsToken, 3);
      await refusedSocket(wsToken);
      for (const raw of sockets) raw.close();

      // A closed stream's slot is free again.
      held.pop()!.close();
      let reopened: RawStream | undefined;
      await expect
        .poll(
          async () => {
            reopened?.close();
            reopened = await openRaw(service.url, tokens.at(-1)!, '127.0.0.200');
            return reopened.headers['retry-after'];
          },
          { timeout: 30_000 },
        )
        .toBeUndefined();
      reopened?.close();
      for (const stream of held) stream.close();
    },
  );
});
