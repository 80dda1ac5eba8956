import { describe, expect, it } from 'vitest';

import { useTestApp } from '../helpers/test-app.js';

/**
 * PATCH /api/user and POST /api/user/profile are answered by the REST fast
 * path (src/http/rest-fast.ts); the same request with a query string is not,
 * and reaches the OpenAPI adapter. Both must answer alike.
 */

const { app, database } = useTestApp();

async function both(method: string, path: string, token: string | null, body: unknown) {
  // The adapter first: the same write again on the fast path changes nothing.
  const adapter = await app.request(method, `${path}?via=adapter`, { token, body });
  const fast = await app.request(method, path, { token, body });
  expect(fast.status).toBe(adapter.status);
  expect(fast.body).toEqual(adapter.body);
  for (const name of ['content-type', 'www-authenticate', 'retry-after']) {
    expect(fast.headers.get(name), name).toBe(adapter.headers.get(name));
  }
  return fast;
}

describe('REST fast path — same answers as the OpenAPI adapter', () => {
  it('PATCH /api/user: success, unknown key, no token, taken handle', async () => {
    const token = await app.token();
    expect((await both('PATCH', '/api/user', token, { name: 'Both' })).status).toBe(200);
    const unknown = await both('PATCH', '/api/user', token, { favouriteTeam: 'X' });
    expect(unknown.body.error.issues[0].path).toBe('favouriteTeam');
    expect((await both('PATCH', '/api/user', null, { name: 'x' })).status).toBe(401);
    const handle = `rest_${Date.now().toString(36)}`;
    await app.request('PATCH', '/api/user', { token, body: { handle } });
    const taken = await both('PATCH', '/api/user', await app.token(), { handle });
    expect(taken.body.error.code).toBe('HANDLE_TAKEN');
  });

  it('POST /api/user/profile: 201 the first time on either path, 200 after', async () => {
    const first = await app.request('POST', '/api/user/profile', {
      token: await app.token(),
      body: {},
    });
    expect(first.status).toBe(201);
    const viaAdapter = await app.request('POST', '/api/user/profile?via=adapter', {
      token: await app.token(),
      body: {},
    });
    expect(viaAdapter.status).toBe(201);
    const token = await app.token();
    await app.request('POST', '/api/user/profile', { token, body: {} });
    const repeat = await both('POST', '/api/user/profile', token, { location: 'Leeds' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.data.questSync.pointsAwarded).toBe(0);
  });
});
