import { TRPCClientError } from '@trpc/client';
import { beforeAll, describe, expect, it } from 'vitest';

import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

const { app, database } = useTestApp();

const patch = (token: string, body: unknown) => app.request('PATCH', '/api/user', { token, body });

function expectValidation(response: { status: number; body: any }, path: string) {
  expect(response.status).toBe(400);
  expect(response.body.success).toBe(false);
  expect(response.body.error.code).toBe('VALIDATION_FAILED');
  expect(response.body.error.issues).toEqual(
    expect.arrayContaining([expect.objectContaining({ path })]),
  );
}

describe('PATCH /api/user — happy', () => {
  it('sets fields before onboarding and returns the full user', async () => {
    const token = await app.token();
    const response = await patch(token, {
      name: 'Ann Fan',
      handle: '@AnnFan',
      location: 'Lisbon',
      favoriteSport: 'Football',
      favoriteTeam: 'Benfica',
      favoritePlayer: 'Eusébio',
      rivalTeam: 'Porto',
      profileUrl: 'https://example.com/ann',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const user = response.body.data;
    expect(response.body.success).toBe(true);
    expect(user).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Ann Fan',
      handle: 'AnnFan',
      location: 'Lisbon',
      favoriteSport: 'Football',
      favoriteTeam: 'Benfica',
      favoritePlayer: 'Eusébio',
      rivalTeam: 'Porto',
      profileUrl: 'https://example.com/ann',
      points: 0,
      onboardedAt: null,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    const rows = await app.db
      .selectFrom('profiles')
      .selectAll()
      .where('userId', '=', user.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.handle).toBe('AnnFan');
  });

  it('leaves omitted fields alone, clears on null and on blank strings', async () => {
    const token = await app.token();
    await patch(token, { name: 'Bo', location: 'Oslo', favoriteSport: 'Skiing' });
    const response = await patch(token, { location: null, favoriteSport: '   ' });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ name: 'Bo', location: null, favoriteSport: null });
  });

  it('stores NFC-normalised, trimmed text', async () => {
    const token = await app.token();
    const decomposed = 'Jose\u0301'; // "José" as e + combining accent
    const response = await patch(token, { name: `  ${decomposed}  ` });
    expect(response.body.data.name).toBe('Jos\u00e9');
  });

  it('does not move updatedAt when the write changes nothing', async () => {
    const token = await app.token();
    const first = await patch(token, {
      name: 'Same',
      handle: uniqueSubject('h').replace(/-/g, '_').slice(0, 30),
    });
    await new Promise((resolve) => setTimeout(resolve, 15));
    const again = await patch(token, { name: '  Same ' });
    expect(again.status).toBe(200);
    expect(again.body.data.updatedAt).toBe(first.body.data.updatedAt);
    await new Promise((resolve) => setTimeout(resolve, 15));
    const changed = await patch(token, { name: 'Different' });
    expect(changed.body.data.updatedAt > first.body.data.updatedAt).toBe(true);
  });

  it('lets the owner change a handle, including its letter case', async () => {
    const token = await app.token();
    const base = `h${Date.now().toString(36)}`;
    await patch(token, { handle: `${base}_a` });
    const renamed = await patch(token, { handle: `${base}_b` });
    expect(renamed.body.data.handle).toBe(`${base}_b`);
    const recased = await patch(token, { handle: `${base.toUpperCase()}_B` });
    expect(recased.status).toBe(200);
    expect(recased.body.data.handle).toBe(`${base.toUpperCase()}_B`);
    // the old handle is reserved for its previous owner (test/operations/updateUser/handles.test.ts)
    const other = await patch(await app.token(), { handle: `${base}_a` });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('HANDLE_TAKEN');
  });

  it('accepts application/json with a charset exactly like application/json', async () => {
    const token = await app.token();
    const response = await app.request('PATCH', '/api/user', {
      token,
      body: { name: 'Charset' },
      contentType: 'application/json; charset=utf-8',
    });
    expect(response.status).toBe(200);
    expect(response.body.data.name).toBe('Charset');
    const upper = await app.request('PATCH', '/api/user', {
      token,
      body: { name: 'Upper' },
      contentType: 'Application/JSON; charset=UTF-8',
    });
    expect(upper.status).toBe(200);
    expect(upper.body.data.name).toBe('Upper');
  });

  it('creates exactly one user when first requests race', async () => {
    const subject = uniqueSubject('race');
    const token = await app.token(subject);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => patch(token, { name: `Racer ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
    const users = await app.db
      .selectFrom('users')
      .select('id')
      .where('subject', '=', subject)
      .execute();
    expect(users).toHaveLength(1);
  });

  it('serves the same update over the typed tRPC client', async () => {
    const token = await app.token();
    const client = app.trpc(token);
    const result = await client.updateUser.mutate({ name: 'Via tRPC', favoriteTeam: 'Ajax' });
    expect(result.success).toBe(true);
    expect(result.data.name).toBe('Via tRPC');
    expect(result.data.favoriteTeam).toBe('Ajax');
    const rest = await patch(token, { location: 'Amsterdam' });
    expect(rest.body.data).toMatchObject({
      id: result.data.id,
      name: 'Via tRPC',
      location: 'Amsterdam',
    });
  });
});

describe('PATCH /api/user — field rules', () => {
  let token: string;
  beforeAll(async () => {
    token = await app.token();
  });

  it.each([
    ['name', ''.padEnd(81, 'n')],
    ['location', ''.padEnd(101, 'l')],
    ['favoriteSport', ''.padEnd(51, 's')],
    ['favoriteTeam', ''.padEnd(101, 't')],
    ['favoritePlayer', ''.padEnd(101, 'p')],
    ['rivalTeam', ''.padEnd(101, 'r')],
    ['profileUrl', `https://example.com/${'u'.repeat(2040)}`],
  ])('refuses %s over its length limit', async (field, value) => {
    expectValidation(await patch(token, { [field]: value }), field);
  });

  it.each([
    ['name', ''.padEnd(80, 'n')],
    ['location', ''.padEnd(100, 'l')],
    ['favoriteSport', ''.padEnd(50, 's')],
    ['favoritePlayer', ''.padEnd(100, 'p')],
  ])('accepts %s at exactly its length limit', async (field, value) => {
    const response = await patch(token, { [field]: value });
    expect(response.status).toBe(200);
    expect(response.body.data[field]).toBe(value);
  });

  it('counts characters, not UTF-16 units: 80 emoji make a valid name', async () => {
    const response = await patch(token, { name: '⚽'.repeat(40) + '🏆'.repeat(40) });
    expect(response.status).toBe(200);
  });

  it.each([
    ['ab', 'too short'],
    ['a'.repeat(31), 'too long'],
    ['has space', 'space'],
    ['dash-ed', 'dash'],
    ['émile', 'non-ASCII letter'],
    ['admin', 'reserved'],
    ['@Support', 'reserved with @ and capitals'],
    ['ROOT', 'reserved in capitals'],
  ])('refuses handle %s (%s)', async (handle) => {
    expectValidation(await patch(token, { handle }), 'handle');
  });

  it.each([
    'http://example.com',
    'ftp://example.com/file',
    'javascript:alert(1)',
    'data:text/html,hi',
    '/relative/path',
    'example.com',
    'https://user:secret@example.com/',
  ])('refuses profileUrl %s', async (profileUrl) => {
    expectValidation(await patch(token, { profileUrl }), 'profileUrl');
  });

  it.each(['name', 'handle', 'location', 'favoriteTeam', 'profileUrl'])(
    'refuses control characters in %s',
    async (field) => {
      expectValidation(await patch(token, { [field]: 'abc\u0000def' }), field);
      expectValidation(await patch(token, { [field]: 'abc\u001bdef' }), field);
      expectValidation(await patch(token, { [field]: 'two\nlines' }), field);
    },
  );

  it.each([42, true, ['a'], { nested: 'x' }])('refuses a non-string value %j', async (value) => {
    expectValidation(await patch(token, { name: value }), 'name');
  });

  it('refuses lone surrogates', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token,
      rawBody: '{"name":"\\ud800x"}',
    });
    expectValidation(response, 'name');
  });

  it('refuses clearing a handle once set, but lets it change', async () => {
    const own = await app.token();
    await patch(own, { handle: `keep_${Date.now().toString(36)}` });
    expectValidation(await patch(own, { handle: null }), 'handle');
    expectValidation(await patch(own, { handle: '  ' }), 'handle');
  });

  it('allows clearing a handle that was never set', async () => {
    const response = await patch(await app.token(), { handle: null, name: 'No Handle' });
    expect(response.status).toBe(200);
    expect(response.body.data.handle).toBeNull();
  });

  it('refuses rivalTeam equal to favoriteTeam, ignoring case, from either side', async () => {
    const own = await app.token();
    expectValidation(
      await patch(own, { favoriteTeam: 'Celtic', rivalTeam: 'celtic' }),
      'rivalTeam',
    );
    await patch(own, { favoriteTeam: 'Celtic' });
    expectValidation(await patch(own, { rivalTeam: 'CELTIC' }), 'rivalTeam');
    await patch(own, { rivalTeam: 'Rangers' });
    expectValidation(await patch(own, { favoriteTeam: 'rangers' }), 'favoriteTeam');
  });

  it('refuses {} with "no fields"', async () => {
    const response = await patch(token, {});
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toMatch(/no fields/i);
  });

  it('refuses unknown keys and names them', async () => {
    const response = await patch(token, { favouriteTeam: 'Spurs' });
    expectValidation(response, 'favouriteTeam');
    expect(response.body.error.message).toContain('favouriteTeam');
  });

  it('refuses __proto__ and constructor as unknown keys', async () => {
    const proto = await app.request('PATCH', '/api/user', {
      token,
      rawBody: '{"__proto__":{"name":"x"},"name":"y"}',
    });
    expectValidation(proto, '__proto__');
    expectValidation(await patch(token, { constructor: 'x' }), 'constructor');
  });
});

describe('PATCH /api/user — handles are unique', () => {
  it('answers 409 HANDLE_TAKEN for a handle another user holds in any case', async () => {
    const handle = `Ann_${Date.now().toString(36)}`;
    const first = await patch(await app.token(), { handle });
    expect(first.status).toBe(200);
    const other = await app.token();
    for (const attempt of [handle, handle.toLowerCase(), `@${handle.toUpperCase()}`]) {
      const response = await patch(other, { handle: attempt, name: 'Should not stick' });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ success: false, error: { code: 'HANDLE_TAKEN' } });
    }
    // nothing half-written: the name in the failed request did not land
    const after = await patch(other, { location: 'Elsewhere' });
    expect(after.body.data.name).toBeNull();
  });

  it('lets exactly one of many racing users claim a handle', async () => {
    const handle = `race_${Date.now().toString(36)}`;
    const tokens = await Promise.all(Array.from({ length: 12 }, () => app.token()));
    const responses = await Promise.all(
      tokens.map((token, i) => patch(token, { handle: i % 2 ? handle : handle.toUpperCase() })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    const owners = await app.db
      .selectFrom('profiles')
      .select('userId')
      .where((eb) => eb(eb.fn('lower', ['handle']), '=', handle.toLowerCase()))
      .execute();
    expect(owners).toHaveLength(1);
  });
});

describe('PATCH /api/user — request errors', () => {
  let token: string;
  beforeAll(async () => {
    token = await app.token();
  });

  it.each([
    ['malformed JSON', '{"name": "x"', 'not valid JSON'],
    ['a JSON array', '[{"name":"x"}]', 'JSON object'],
    ['null', 'null', 'JSON object'],
    ['a JSON string', '"name"', 'JSON object'],
    ['a number', '42', 'JSON object'],
  ])('answers 400 for %s', async (_label, rawBody, message) => {
    const response = await app.request('PATCH', '/api/user', { token, rawBody });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
    expect(response.body.error.message).toContain(message);
  });

  it.each([
    ['text/plain', '{"name":"x"}'],
    ['application/x-www-form-urlencoded', 'name=x'],
    ['multipart/form-data; boundary=x', '--x--'],
    ['application/jsonp', '{"name":"x"}'],
  ])('answers 415 for Content-Type %s', async (contentType, rawBody) => {
    const response = await app.request('PATCH', '/api/user', { token, rawBody, contentType });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({
      success: false,
      error: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
  });

  it('answers 415 when Content-Type is missing', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token,
      rawBody: '{"name":"x"}',
      contentType: null,
    });
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 415 for a non-UTF-8 charset', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token,
      rawBody: '{"name":"x"}',
      contentType: 'application/json; charset=latin1',
    });
    expect(response.status).toBe(415);
  });

  it('answers 404 in the envelope for an unknown path', async () => {
    const response = await app.request('GET', '/api/nothing-here', { token });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('PATCH /api/user — errors over tRPC', () => {
  async function trpcError(promise: Promise<unknown>) {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    return error as TRPCClientError<any>;
  }

  it('reports validation failures with the contract code and issues', async () => {
    const client = app.trpc(await app.token());
    const error = await trpcError(client.updateUser.mutate({ favouriteTeam: 'x' } as never));
    expect(error.data).toMatchObject({
      code: 'BAD_REQUEST',
      httpStatus: 400,
      errorCode: 'VALIDATION_FAILED',
      issues: [expect.objectContaining({ path: 'favouriteTeam' })],
    });
    expect(error.data.stack).toBeUndefined();
  });

  it('reports HANDLE_TAKEN as CONFLICT', async () => {
    const handle = `trpc_${Date.now().toString(36)}`;
    await app.trpc(await app.token()).updateUser.mutate({ handle });
    const error = await trpcError(app.trpc(await app.token()).updateUser.mutate({ handle }));
    expect(error.data).toMatchObject({
      code: 'CONFLICT',
      httpStatus: 409,
      errorCode: 'HANDLE_TAKEN',
    });
  });

  it('reports a bad token as UNAUTHORIZED', async () => {
    const error = await trpcError(app.trpc('not-a-jwt').updateUser.mutate({ name: 'x' }));
    expect(error.data).toMatchObject({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
      errorCode: 'UNAUTHENTICATED',
    });
  });
});
