import { describe, expect, it } from 'vitest';
import type { OpenApiRouter } from 'trpc-to-openapi';
import { appRouter } from '../../routers/index.js';
import { fastRoutes } from '../../src/http/rest-fast.js';
import { fastMutations } from '../../src/http/trpc-fast.js';
import { type ApiResponse, useTestApp } from '../helpers/test-app.js';

/**
 * The short-cuts in front of the adapters (src/http/rest-fast.ts in front of
 * trpc-to-openapi, src/http/trpc-fast.ts in front of tRPC's adapter) must
 * answer exactly as the adapters do. Every case of every operation a
 * short-cut serves is sent both ways — once as the short-cut takes it, once
 * with a query string, which the short-cuts leave to the adapter — and the
 * two answers are compared: status, headers and body.
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

/** Where each way sends the request; the query string makes the short-cuts step aside. */
function target(face: Face, operation: Operation, way: 'short-cut' | 'adapter') {
  const query = way === 'adapter' ? '?via=adapter' : '';
  if (face === 'rest') {
    const route = REST_ROUTE[operation];
    return { method: route.method, path: `${route.path}${query}` };
  }
  return { method: 'POST', path: `/trpc/${operation}${query}` };
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

async function send(face: Face, c: Case, way: 'short-cut' | 'adapter'): Promise<ApiResponse> {
  const token = await tokenFor(c.token);
  if (token && c.prepare) await c.prepare(token);
  const body = c.body?.replace(HANDLE, c.body.includes(HANDLE) ? await takenHandle() : '');
  const { method, path } = target(face, c.operation, way);
  return app.request(method, path, {
    token,
    rawBody: body,
    contentType: c.contentType ?? 'application/json',
  });
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

const COMPARED_HEADERS = [
  'content-type',
  'vary',
  'www-authenticate',
  'retry-after',
  'allow',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
];

function headersOf(response: ApiResponse): Record<string, string | null> {
  return Object.fromEntries(COMPARED_HEADERS.map((name) => [name, response.headers.get(name)]));
}

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
  describe(`${face}: short-cut and adapter answer alike`, () => {
    it.each(CASES.map((c) => [`${c.operation}: ${c.name} (${c.status})`, c] as const))(
      '%s',
      async (_name, c) => {
        const viaAdapter = await send(face, c, 'adapter');
        const viaShortCut = await send(face, c, 'short-cut');
        // tRPC answers every success with 200; REST says 201 when something was created.
        const expected = face === 'trpc' && c.status === 201 ? 200 : c.status;
        expect(viaAdapter.status, viaAdapter.text).toBe(expected);
        expect(viaShortCut.status).toBe(viaAdapter.status);
        expect(headersOf(viaShortCut)).toEqual(headersOf(viaAdapter));
        expect(normalized(viaShortCut.body)).toEqual(normalized(viaAdapter.body));
      },
    );
  });
}
