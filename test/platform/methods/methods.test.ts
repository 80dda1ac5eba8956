import { METHODS, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { appRouter } from '../../../routers/index.js';
import { listProcedures } from '../../../src/trpc/procedures.js';
import { assertResponseConforms } from '../../helpers/openapi-conformance.js';
import { useTestApp } from '../../helpers/test-app.js';

const { app } = useTestApp();

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request with any method name, over a fresh connection, no token and no
 * body. fetch() cannot send TRACE or CONNECT (undici refuses them), and Node
 * hands the answer to a CONNECT to the 'connect' event, with the socket.
 */
function send(method: string, path: string): Promise<Answer> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, agent: false });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer`)));
    req.on('error', (error) => reject(new Error(`${method} ${path}: ${error.message}`)));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('connect', (res, socket, head) => {
      let text = head.toString('utf8');
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      socket.on('error', reject);
    });
    req.end();
  });
}

const json = (answer: Answer): any => (answer.text ? JSON.parse(answer.text) : undefined);

function expectMethodNotAllowed(answer: Answer, where: string, allow: string[]) {
  expect(answer.status, where).toBe(405);
  expect(answer.headers.allow, where).toBe(allow.join(', '));
  if (answer.text === '') return; // HEAD
  expect(json(answer), where).toMatchObject({
    success: false,
    error: { code: 'METHOD_NOT_ALLOWED' },
  });
}

function expectNotFound(answer: Answer, where: string) {
  expect(answer.status, where).toBe(404);
  if (answer.text === '') return; // HEAD
  expect(json(answer), where).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
}

const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

describe('every HTTP method Node accepts, on the REST paths', () => {
  it('answers what openapi.json documents, 405 with Allow elsewhere on a known path, never 5xx', async () => {
    const document = json(await send('GET', '/openapi.json')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.entries(document.paths).map(([path, item]) => {
      const documented = Object.keys(item).map((method) => method.toUpperCase());
      return {
        path,
        allow: documented.includes('GET') ? [...documented, 'HEAD'].sort() : documented.sort(),
      };
    });
    expect(paths.length).toBeGreaterThan(5);
    for (const method of METHODS) {
      for (const { path, allow } of paths) {
        const where = `${method} ${path}`;
        const answer = await send(method, path);
        expect(answer.status, where).toBeLessThan(500);
        if (allow.includes(method)) {
          // The operation itself answers (401 without a token, 415 without a body, 200 for health).
          if (method !== 'HEAD') {
            assertResponseConforms({
              method,
              url: path,
              status: answer.status,
              headers: new Headers(answer.headers as Record<string, string>),
              text: answer.text,
            });
          }
          continue;
        }
        expectMethodNotAllowed(answer, where, allow);
      }
      const unknown = await send(method, '/api/no-such-path');
      const where = `${method} /api/no-such-path`;
      // A body method is refused for its missing Content-Type first (docs/decisions/0003-requests-and-methods.md).
      if (BODY_METHODS.includes(method)) expect(unknown.status, where).toBe(415);
      else expectNotFound(unknown, where);
    }
  });
});

describe('every HTTP method Node accepts, on the /trpc paths', () => {
  const ALLOW = { query: ['GET', 'HEAD'], mutation: ['POST'], subscription: ['GET'] };
  const procedures = listProcedures(appRouter);

  it('answers 405 in the envelope with Allow for what tRPC does not serve, never 5xx', async () => {
    const targets = [
      ...procedures.map(({ path, kind }) => ({ path: `/trpc/${path}`, allow: ALLOW[kind] })),
      { path: '/trpc/me,quests?batch=1', allow: ALLOW.query },
      { path: '/trpc/updateUser,onboardProfile?batch=1', allow: ALLOW.mutation },
    ];
    expect(procedures.map(({ kind }) => kind)).toEqual(
      expect.arrayContaining(['query', 'mutation', 'subscription']),
    );
    for (const method of METHODS) {
      for (const { path, allow } of targets) {
        const where = `${method} ${path}`;
        const subscription = allow.length === 1 && allow[0] === 'GET';
        // The GET of a subscription is its stream; tRPC's own answers are tested elsewhere.
        if (method === 'GET' && subscription) continue;
        const answer = await send(method, path);
        expect(answer.status, where).toBeLessThan(500);
        if (method === 'HEAD' && !subscription) {
          // As GET would answer (tRPC's answer, without the body).
          expect(answer.status, where).toBe((await send('GET', path)).status);
          continue;
        }
        if (method === 'GET' || method === 'POST') continue; // tRPC's answer, in its own shape
        expectMethodNotAllowed(answer, where, allow);
      }
      if (['GET', 'HEAD', 'POST'].includes(method)) continue;
      expectNotFound(
        await send(method, '/trpc/noSuchProcedure'),
        `${method} /trpc/noSuchProcedure`,
      );
    }
  });

  it('logs no error for a method tRPC cannot take (TRACE, CONNECT)', async () => {
    const before = app.logs.length;
    for (const method of ['TRACE', 'CONNECT']) {
      const answer = await send(method, '/trpc/me');
      expectMethodNotAllowed(answer, `${method} /trpc/me`, ['GET', 'HEAD']);
    }
    const errors = app.logs
      .slice(before)
      .map((line) => JSON.parse(line) as { level: number | string })
      .filter(({ level }) => level === 'error' || (typeof level === 'number' && level >= 50));
    expect(errors).toEqual([]);
  });
});
