import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { startTestApp, type ApiResponse, type TestApp } from '../../helpers/test-app.js';

/*
 * The REST face answers every error in the envelope and nothing else, whoever
 * raised it: trpc-to-openapi itself (an unknown path), the procedure's input
 * schema, the procedure, its auth middleware, the per-user limit. The adapter
 * would write its own shape ({ message, code, issues }); src/http/rest-face.ts
 * hands its errors to the app's error handler instead, and these tests fail
 * if a later adapter writes its own body again.
 */

let database: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  app = await startTestApp({ database, env: { RATE_LIMIT_PER_USER: '3' } });
});

afterAll(async () => {
  await app?.close();
  await database?.destroy();
});

function expectEnvelope(response: ApiResponse, status: number, error: Record<string, unknown>) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(JSON.parse(response.text)).toStrictEqual({ success: false, error });
}

describe('REST errors, whoever raises them, in the envelope only', () => {
  it('an unknown path (the adapter finds no procedure)', async () => {
    const response = await app.request('GET', '/api/nothing-here', { token: await app.token() });
    expectEnvelope(response, 404, { code: 'NOT_FOUND', message: 'No such operation' });
  });

  it('an input its zod schema refuses', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      body: { favouriteTeam: 'Arsenal' },
    });
    expectEnvelope(response, 400, {
      code: 'VALIDATION_FAILED',
      message: 'favouriteTeam: Unknown field "favouriteTeam"',
      issues: [{ path: 'favouriteTeam', message: 'Unknown field "favouriteTeam"' }],
    });
  });

  it('a query parameter its zod schema refuses', async () => {
    const response = await app.request('GET', '/api/user/points?limit=0', {
      token: await app.token(),
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['success', 'error']);
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [{ path: 'limit' }],
    });
  });

  it('the procedure (a handle someone else holds), with the status from the code table', async () => {
    const handle = `taken_${Date.now().toString(36)}`;
    const first = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      body: { handle },
    });
    expect(first.status).toBe(200);
    const second = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      body: { handle },
    });
    expectEnvelope(second, 409, {
      code: 'HANDLE_TAKEN',
      message: `The handle "${handle}" is taken`,
      issues: [{ path: 'handle', message: 'This handle is taken' }],
    });
  });

  it('the auth middleware, with WWW-Authenticate', async () => {
    const response = await app.request('GET', '/api/user', { token: 'not-a-jwt' });
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(response.status).toBe(401);
    expect(Object.keys(response.body)).toEqual(['success', 'error']);
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('the per-user limit, with Retry-After and the RateLimit headers', async () => {
    const token = await app.token();
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 4; i += 1) answers.push(await app.request('GET', '/api/user', { token }));
    expect(answers.slice(0, 3).map(({ status }) => status)).toEqual([200, 200, 200]);
    const limited = answers[3]!;
    expectEnvelope(limited, 429, {
      code: 'RATE_LIMITED',
      message: 'Too many requests for this user; slow down',
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('logs nothing for a client’s error', async () => {
    const before = app.logs.length;
    await app.request('PATCH', '/api/user', { token: await app.token(), body: { nope: 1 } });
    const lines = app.logs.slice(before).map((line) => JSON.parse(line) as { msg: string });
    expect(lines.map(({ msg }) => msg)).toEqual(['request']);
  });
});
