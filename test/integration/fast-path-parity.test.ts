import { describe, expect, it, vi } from 'vitest';
import type { OpenApiRouter } from 'trpc-to-openapi';
import { appRouter } from '../../routers/index.js';
import { fastRoutes } from '../../src/http/rest-fast.js';
import { fastMutations } from '../../src/http/trpc-fast.js';
import { type ApiResponse, useTestApp } from '../helpers/test-app.js';

/**
 * The short-cuts in front of the adapters (src/http/rest-fast.ts in front of
 * trpc-to-openapi, src/http/trpc-fast.ts in front of tRPC's adapter) must
 * answer exactly as the adapters do, and the fast lane (src/http/fast-lane.ts,
 * which brings plain requests to the short-cuts past Express's chain) exactly
 * as the chain does. Every case of every operation a short-cut serves is sent
 * three ways and the answers are compared (status, every header but the
 * per-request ones, body):
 * - `lane`: as a native app sends it; the request log line says the lane served it;
 * - `chain`: the same with an Origin header the API does not allow, which
 *   the lane leaves to the chain (the same short-cut then answers);
 * - `adapter`: the same with a query string, which the short-cuts leave to the adapter.
 */

const { app } = useTestApp();

type Operation = 'updateUser' | 'onboardProfile' | 'deleteAccount';
type Face = 'rest' | 'trpc';

const REST_ROUTE: Record<Operation, { method: string; path: string }> = {
  updateUser: { method: 'PATCH', path: '/api/user' },
  onboardProfile: { method: 'POST', path: '/api/user/profile' },
  deleteAccount: { method: 'DELETE', path: '/api/user' },
};

interface Case {
  name: string;
  operation: Operation;
  status: number;
  /** The raw request body; undefined sends none. */
  body?: string;
  contentType?: string;
  /** Whose token: a new user's (default), none, a forged one. */
  token?: 'user' | 'none' | 'forged';
  /** Runs for each way's user before the request (the state both ways start from). */
  prepare?: (token: string) => Promise<void>;
}

let handleCounter = 0;
/** A handle some other user holds when the request is made. */
async function takenHandle(): Promise<string> {
  handleCounter += 1;
  const handle = `taken_${Date.now().toString(36)}_${handleCounter}`;
  const holder = await app.token();
  const held = await app.request('PATCH', '/api/user', { token: holder, body: { handle } });
  expect(held.status).toBe(200);
  return handle;
}

const onboard = async (token: string) => {
  const response = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(response.status).toBe(201);
};

const HANDLE = '@@handle@@';

const CASES: Case[] = [
  { name: 'changes fields', operation: 'updateUser', status: 200, body: '{"name":"Parity"}' },
  {
    name: 'clears a field with null',
    operation: 'updateUser',
    status: 200,
    body: '{"location":null,"favoriteTeam":"Leeds"}',
  },
  {
    name: 'an unknown key',
    operation: 'updateUser',
    status: 400,
    body: '{"favouriteTeam":"Arsenal"}',
  },
  { name: 'no fields', operation: 'updateUser', status: 400, body: '{}' },
  { name: 'a bad handle', operation: 'updateUser', status: 400, body: '{"handle":"a b"}' },
  { name: 'a wrong type', operation: 'updateUser', status: 400, body: '{"name":42}' },
  { name: 'no body', operation: 'updateUser', status: 400 },
  {
    name: 'a byte-order mark before the JSON',
    operation: 'updateUser',
    status: 200,
    body: '\uFEFF{"name":"Bom"}',
  },
  {
    name: 'charset=utf-8',
    operation: 'updateUser',
    status: 200,
    body: '{"name":"Charset"}',
    contentType: 'application/json; charset=utf-8',
  },
  { name: 'a JSON array', operation: 'updateUser', status: 400, body: '[{"name":"x"}]' },
  { name: 'a JSON string', operation: 'updateUser', status: 400, body: '"x"' },
  {
    name: 'a __proto__ key',
    operation: 'updateUser',
    status: 400,
    body: '{"__proto__":{"name":"x"}}',
  },
  {
    name: 'JSON nested too deep',
    operation: 'updateUser',
    status: 400,
    body: `{"name":${'['.repeat(40)}${']'.repeat(40)}}`,
  },
  { name: 'only whitespace', operation: 'updateUser', status: 400, body: '  ' },
  { name: 'malformed JSON', operation: 'updateUser', status: 400, body: '{"name":' },
  { name: 'no token', operation: 'updateUser', status: 401, body: '{"name":"x"}', token: 'none' },
  {
    name: 'a forged token',
    operation: 'updateUser',
    status: 401,
    body: '{"name":"x"}',
    token: 'forged',
  },
  {
    name: 'a handle another user holds',
    operation: 'updateUser',
    status: 409,
    body: `{"handle":"${HANDLE}"}`,
  },
  { name: 'onboards (first time)', operation: 'onboardProfile', status: 201, body: '{}' },
  {
    name: 'onboards again with new fields',
    operation: 'onboardProfile',
    status: 200,
    body: '{"location":"Leeds"}',
    prepare: onboard,
  },
  {
    name: 'onboards with every field onboarding accepts',
    operation: 'onboardProfile',
    status: 201,
    body: JSON.stringify({
      name: 'Ann',
      location: 'Leeds',
      favoriteSport: 'Football',
      favoriteTeam: 'Leeds United',
      favoritePlayer: 'Bremner',
      profileUrl: 'https://example.com/ann.png',
    }),
  },
  {
    name: 'a field only PATCH sets',
    operation: 'onboardProfile',
    status: 400,
    body: '{"rivalTeam":"Chelsea"}',
  },
  {
    name: 'an unknown key',
    operation: 'onboardProfile',
    status: 400,
    body: '{"points":1000000}',
  },
  {
    name: 'a bad profile URL',
    operation: 'onboardProfile',
    status: 400,
    body: '{"profileUrl":"x"}',
  },
  {
    name: 'no token',
    operation: 'onboardProfile',
    status: 401,
    body: '{}',
    token: 'none',
  },
  {
    name: 'a forged token',
    operation: 'onboardProfile',
    status: 401,
    body: '{}',
    token: 'forged',
  },
  {
    name: 'a handle another user holds',
    operation: 'onboardProfile',
    status: 409,
    body: `{"handle":"${HANDLE}"}`,
  },
  { name: 'deletes the account', operation: 'deleteAccount', status: 200, prepare: onboard },
  { name: 'deletes a never-onboarded account', operation: 'deleteAccount', status: 200 },
  { name: 'no token', operation: 'deleteAccount', status: 401, token: 'none' },
  { name: 'a forged token', operation: 'deleteAccount', status: 401, token: 'forged' },
];

type Way = 'lane' | 'chain' | 'adapter';

/** An origin the test app does not allow (CORS_ORIGINS is empty). */
const FOREIGN_ORIGIN = 'https://elsewhere.example';

/** Where each way sends the request, and what it adds to make the lane or the short-cut step aside. */
function target(face: Face, operation: Operation, way: Way) {
  const query = way === 'adapter' ? '?via=adapter' : '';
  const headers: Record<string, string> = way === 'chain' ? { origin: FOREIGN_ORIGIN } : {};
  if (face === 'rest') {
    const route = REST_ROUTE[operation];
    return { method: route.method, path: `${route.path}${query}`, headers };
  }
  return { method: 'POST', path: `/trpc/${operation}${query}`, headers };
}

async function tokenFor(kind: Case['token']): Promise<string | null> {
  if (kind === 'none') return null;
  const token = await app.token();
  if (kind === 'forged') {
    const [header, payload] = token.split('.');
    return `${header}.${payload}.${'A'.repeat(86)}`;
  }
  return token;
}

async function send(face: Face, c: Case, way: Way): Promise<ApiResponse> {
  const token = await tokenFor(c.token);
  if (token && c.prepare) await c.prepare(token);
  const body = c.body?.replace(HANDLE, c.body.includes(HANDLE) ? await takenHandle() : '');
  const { method, path, headers } = target(face, c.operation, way);
  const response = await app.request(method, path, {
    token,
    rawBody: body,
    contentType: c.contentType ?? 'application/json',
    headers,
  });
  // The request log line is written when the response finishes: wait for it.
  const requestId = response.headers.get('x-request-id');
  await vi.waitFor(() => expect(requestLines(requestId)).not.toHaveLength(0));
  // One line: the request went through the app once (the lane, or the chain).
  const [line, ...more] = requestLines(requestId);
  expect(more).toEqual([]);
  expect(line!.fastLane, `served by the lane: ${way}`).toBe(
    way === 'lane' && lanesTake(c) ? true : undefined,
  );
  return response;
}

/** Whether the lane takes a case's request (it needs a body, and leaves the rest to the chain). */
function lanesTake(c: Case): boolean {
  return c.body !== undefined;
}

function requestLines(requestId: string | null): { fastLane?: boolean }[] {
  return app.logs
    .map((line) => JSON.parse(line) as { reqId?: string; msg?: string; fastLane?: boolean })
    .filter((entry) => entry.reqId === requestId && entry.msg === 'request');
}

const VOLATILE_KEYS = new Set([
  'id',
  'userId',
  'createdAt',
  'updatedAt',
  'onboardedAt',
  'completedAt',
  'deletedAt',
  'rank',
]);

/** The body with what differs between two users (ids, times, ranks, handles) made equal. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        VOLATILE_KEYS.has(key) && inner !== null ? `<${key}>` : normalized(inner),
      ]),
    );
  }
  return typeof value === 'string' ? value.replace(/taken_[a-z0-9_]+/g, '<handle>') : value;
}

/** Headers that differ from request to request (or with the body's ids and times), and framing. */
const PER_REQUEST_HEADERS = new Set([
  'date',
  'x-request-id',
  'ratelimit-reset',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

function headersOf(response: ApiResponse): Record<string, string> {
  return Object.fromEntries(
    [...response.headers].filter(([name]) => !PER_REQUEST_HEADERS.has(name)),
  );
}

describe('the lane leaves to the chain', () => {
  it('a tRPC call that asks for a streamed answer (trpc-accept): answered as the adapter answers it', async () => {
    const send = async (path: string) =>
      app.request('POST', path, {
        token: await app.token(),
        rawBody: '{"name":"Streamed"}',
        headers: { 'trpc-accept': 'application/jsonl' },
      });
    const viaAdapter = await send('/trpc/updateUser?via=adapter');
    const plain = await send('/trpc/updateUser');
    expect(plain.status, plain.text).toBe(viaAdapter.status);
    expect(plain.body).toEqual(viaAdapter.body);
    const requestId = plain.headers.get('x-request-id');
    await vi.waitFor(() => expect(requestLines(requestId)).toHaveLength(1));
    expect(requestLines(requestId)[0]!.fastLane).toBeUndefined();
  });
});

describe('the short-cuts serve exactly the operations this suite covers', () => {
  const covered = [...new Set(CASES.map((c) => c.operation))].sort();

  it('REST: every route the short-cut takes has cases', () => {
    const routes = fastRoutes(appRouter as unknown as OpenApiRouter);
    expect(covered).toEqual(expect.arrayContaining([...routes.values()]));
    for (const [route, operation] of routes) {
      expect(route).toBe(
        `${REST_ROUTE[operation as Operation].method} ${REST_ROUTE[operation as Operation].path}`,
      );
    }
  });

  it('tRPC: every mutation the short-cut takes has cases', () => {
    expect([...fastMutations(appRouter)].sort()).toEqual(covered);
  });

  it('each covered operation has a success case and error cases', () => {
    for (const operation of covered) {
      const statuses = CASES.filter((c) => c.operation === operation).map((c) => c.status);
      expect(statuses.some((status) => status < 300)).toBe(true);
      expect(statuses).toContain(401);
    }
  });
});

for (const face of ['rest', 'trpc'] as const) {
  describe(`${face}: the lane, the chain and the adapter answer alike`, () => {
    it.each(CASES.map((c) => [`${c.operation}: ${c.name} (${c.status})`, c] as const))(
      '%s',
      async (_name, c) => {
        const viaAdapter = await send(face, c, 'adapter');
        const viaChain = await send(face, c, 'chain');
        const viaLane = await send(face, c, 'lane');
        // tRPC answers every success with 200; REST says 201 when something was created.
        const expected = face === 'trpc' && c.status === 201 ? 200 : c.status;
        expect(viaAdapter.status, viaAdapter.text).toBe(expected);
        for (const response of [viaChain, viaLane]) {
          expect(response.status, response.text).toBe(viaAdapter.status);
          expect(headersOf(response)).toEqual(headersOf(viaAdapter));
          expect(normalized(response.body)).toEqual(normalized(viaAdapter.body));
        }
      },
    );
  });
}
