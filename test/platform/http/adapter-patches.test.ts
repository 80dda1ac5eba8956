import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { createOpenApiNodeHttpHandler, type OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestApp } from '../../helpers/test-app.js';

/**
 * What the patches of the faces' adapters change (docs/PATCHES.md); these fail
 * if a patch stops taking effect, test/unit/patches.test.ts if it stops
 * applying.
 *
 * - patches/@trpc+server+*.patch: tRPC's node-http adapter sends an answer that
 *   is whole (anything but a stream) in one write with its length, not chunk
 *   by chunk through a WritableStream (docs/upstream/trpc-server-response.md).
 * - the same patch: a JSON body a middleware has already read as text (the
 *   app's trpcBodyGuard) reaches tRPC as that text, not wrapped into the
 *   Fetch Request's body stream and read back (docs/upstream/trpc-server-body.md).
 * - patches/trpc-to-openapi+*.patch: the REST face makes its abort signal alone
 *   instead of converting every request into a Fetch Request and keeping its
 *   `.signal` (docs/upstream/trpc-to-openapi-signal.md).
 */

const { app } = useTestApp();

/** Counts `new Request(…)` and `new Headers(…)` made through the globals while `run` runs. */
async function countFetchObjects(run: () => Promise<void>) {
  const counts = { Request: 0, Headers: 0 };
  const originals = { Request: globalThis.Request, Headers: globalThis.Headers };
  for (const name of ['Request', 'Headers'] as const) {
    globalThis[name] = new Proxy(originals[name], {
      construct(target, args, newTarget) {
        counts[name] += 1;
        return Reflect.construct(target, args, newTarget === globalThis[name] ? target : newTarget);
      },
    }) as never;
  }
  try {
    await run();
  } finally {
    globalThis.Request = originals.Request;
    globalThis.Headers = originals.Headers;
  }
  return counts;
}

describe('tRPC answers', () => {
  it('a query, a mutation and a batch are sent whole, with their Content-Length', async () => {
    const token = await app.token();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const answers = [
      await fetch(`${app.url}/trpc/updateUser`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ location: 'Faro' }),
      }),
      await fetch(`${app.url}/trpc/me`, { headers }),
      await fetch(`${app.url}/trpc/me,quests?batch=1&input=${encodeURIComponent('{}')}`, {
        headers,
      }),
      // An error answer too.
      await fetch(`${app.url}/trpc/updateUser`, { method: 'POST', headers, body: '{}' }),
    ];
    for (const answer of answers) {
      const body = Buffer.from(await answer.arrayBuffer());
      expect(answer.headers.get('transfer-encoding'), answer.url).toBeNull();
      expect(answer.headers.get('content-length'), answer.url).toBe(String(body.length));
      expect(() => JSON.parse(body.toString('utf8'))).not.toThrow();
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 400]);
  });
});

/** Counts calls of the Fetch `Request.prototype.text` (the body stream read back) while `run` runs. */
async function countBodyReads(run: () => Promise<void>): Promise<number> {
  const original = Object.getOwnPropertyDescriptor(Request.prototype, 'text')!;
  let reads = 0;
  Object.defineProperty(Request.prototype, 'text', {
    ...original,
    value(this: Request) {
      reads += 1;
      return (original.value as (this: Request) => Promise<string>).call(this);
    },
  });
  try {
    await run();
  } finally {
    Object.defineProperty(Request.prototype, 'text', original);
  }
  return reads;
}

describe('tRPC request bodies', () => {
  it('a body the app has read reaches the procedure without a body stream read back', async () => {
    const token = await app.token();
    const client = app.trpc(token);
    await client.updateUser.mutate({ location: 'Faro' });
    const reads = await countBodyReads(async () => {
      const user = await client.updateUser.mutate({ location: 'Lagos' });
      expect(user.data.location).toBe('Lagos');
    });
    expect(reads).toBe(0);
    expect((await client.me.query()).data.location).toBe('Lagos');
  });

  describe('a body no middleware has read is read from the request, as before', () => {
    const t = initTRPC.create();
    const testRouter = t.router({
      echo: t.procedure.input(z.object({ word: z.string() })).mutation(({ input }) => input),
    });
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((req, res) => {
        // `text/plain` read as text stays a body stream: only JSON takes the shortcut.
        const readFirst = req.headers['x-read-first'] === '1';
        const handle = () =>
          void nodeHTTPRequestHandler({ router: testRouter, req, res, path: 'echo' });
        if (!readFirst) return handle();
        let text = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (text += chunk));
        req.on('end', () => {
          Object.assign(req, { body: text });
          handle();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const post = (headers: Record<string, string>, body: string) =>
      fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers, body });

    it('from the stream when no middleware read it', async () => {
      let answer!: Response;
      const reads = await countBodyReads(async () => {
        answer = await post({ 'content-type': 'application/json' }, '{"word":"stream"}');
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ result: { data: { word: 'stream' } } });
      expect(reads).toBe(1);
    });

    it("as read, with the JSON media type's parameters, in any letter case", async () => {
      let answer!: Response;
      const reads = await countBodyReads(async () => {
        answer = await post(
          { 'content-type': 'Application/JSON; charset=utf-8', 'x-read-first': '1' },
          '{"word":"read"}',
        );
      });
      expect(await answer.json()).toEqual({ result: { data: { word: 'read' } } });
      expect(reads).toBe(0);
    });

    it('bad JSON is refused alike, read by a middleware or not', async () => {
      const refusals = [];
      for (const readFirst of ['0', '1']) {
        const answer = await post(
          { 'content-type': 'application/json', 'x-read-first': readFirst },
          '{',
        );
        refusals.push({ status: answer.status, body: (await answer.json()) as unknown });
      }
      expect(refusals[0]!.status).toBe(400);
      expect(refusals[1]).toEqual(refusals[0]);
    });
  });
});

describe("the REST face's abort signal", () => {
  it('a REST call builds no Fetch Request: no Request, no Headers', async () => {
    const token = await app.token();
    const warm = await app.request('PATCH', '/api/user', { token, body: { location: 'Porto' } });
    expect(warm.status, warm.text).toBe(200);
    // The test's own fetch uses undici's classes, not the globals.
    const counts = await countFetchObjects(async () => {
      const rest = await app.request('PATCH', '/api/user', { token, body: { location: 'Braga' } });
      expect(rest.status, rest.text).toBe(200);
      const read = await app.request('GET', '/api/user/points?limit=5', { token });
      expect(read.status, read.text).toBe(200);
    });
    expect(counts).toEqual({ Request: 0, Headers: 0 });
    // The counter does see the globals being used: /trpc builds its Request through them.
    const trpc = await countFetchObjects(async () => {
      await app.trpc(token).me.query();
    });
    expect(trpc.Request).toBeGreaterThan(0);
  });

  describe('aborts when the client goes away, and only then', () => {
    const t = initTRPC.meta<OpenApiMeta>().context<{ signal: AbortSignal | undefined }>().create();
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const testRouter = t.router({
      wait: t.procedure
        .meta({ openapi: { method: 'POST', path: '/wait' } })
        .input(z.object({}))
        .output(z.object({ ok: z.boolean() }))
        .mutation(async () => {
          entered();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return { ok: true };
        }),
    });
    const signals: AbortSignal[] = [];
    let server: Server;
    let port: number;
    beforeAll(async () => {
      const handler = createOpenApiNodeHttpHandler({
        router: testRouter,
        createContext: ({ info }) => {
          signals.push(info.signal);
          return { signal: info.signal };
        },
      });
      server = createServer((req, res) => void handler(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    afterEach(() => {
      signals.length = 0;
    });

    /** POST /wait; resolves once the procedure runs, with the client request. */
    async function startWait() {
      const inProcedure = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let client: ReturnType<typeof request> | undefined;
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/wait',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end('{}');
        client = req;
      });
      await inProcedure;
      return { answer, client: client! };
    }

    it('is not aborted by an answer that completes', async () => {
      const { answer } = await startWait();
      expect(signals).toHaveLength(1);
      expect(signals[0]!.aborted).toBe(false);
      release();
      expect(await answer).toEqual({ status: 200, body: '{"ok":true}' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(signals[0]!.aborted).toBe(false);
    });

    it('is aborted when the client closes the connection before the answer', async () => {
      const { answer, client } = await startWait();
      answer.catch(() => {});
      const aborted = new Promise<void>((resolve) =>
        signals[0]!.addEventListener('abort', () => resolve()),
      );
      client.destroy();
      await aborted;
      expect(signals[0]!.aborted).toBe(true);
      release();
    });
  });
});
