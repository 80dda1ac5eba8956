import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_BACKOFF_MS } from '../../src/auth/remote-keys.js';
import type { AuthVerifier } from '../../src/auth/verifier.js';
import { MAX_TRPC_BATCH } from '../../src/http/trpc-batch.js';
import { FACES, reader, type Face } from '../helpers/reads.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../helpers/test-app.js';
import { signWithForeignKey, startTokenIssuer } from '../helpers/token-issuer.js';

/**
 * What an outside red team found (issue 13), each attack replayed over real
 * HTTP on both faces: REST at the documented path and tRPC at /trpc.
 */

const { app, database } = useTestApp();

type WriteResult =
  | { ok: true; status: number; data: any }
  | { ok: false; status: number; code: string; message: string; issues: any[] | undefined };

/** The two writes on either face, with one result shape. */
function writer(face: Face) {
  const paths = {
    updateUser: ['PATCH', '/api/user'],
    onboardProfile: ['POST', '/api/user/profile'],
  } as const;
  return async function write(
    procedure: keyof typeof paths,
    token: string,
    body: unknown,
  ): Promise<WriteResult> {
    if (face === 'rest') {
      const [method, path] = paths[procedure];
      const response = await app.request(method, path, { token, body });
      if (response.status < 300)
        return { ok: true, status: response.status, data: response.body.data };
      return {
        ok: false,
        status: response.status,
        code: response.body.error.code,
        message: response.body.error.message,
        issues: response.body.error.issues,
      };
    }
    const client = app.trpc(token);
    try {
      const result = await client[procedure].mutate(body as never);
      return { ok: true, status: 200, data: result.data };
    } catch (error) {
      if (!(error instanceof TRPCClientError)) throw error;
      const data = error.data as { httpStatus: number; errorCode: string; issues?: any[] };
      return {
        ok: false,
        status: data.httpStatus,
        code: data.errorCode,
        message: error.message,
        issues: data.issues,
      };
    }
  };
}

/** A raw tRPC POST: the typed client would never send these bytes. */
async function trpcRaw(procedure: string, token: string, body: string | Buffer) {
  const response = await fetch(`${app.url}/trpc/${procedure}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
}

function expectRefused(result: WriteResult, path: string, message?: string | RegExp) {
  expect(result, JSON.stringify(result)).toMatchObject({ ok: false, status: 400 });
  if (result.ok) return;
  expect(result.code).toBe('VALIDATION_FAILED');
  expect(result.issues).toEqual([
    { path, message: message === undefined ? expect.any(String) : expect.stringMatching(message) },
  ]);
}

describe.each(FACES)('field rules over %s', (face) => {
  const write = writer(face);
  let token: string;
  beforeAll(async () => {
    token = await app.token();
  });

  it('trims surrounding whitespace, tabs and newlines included, before every rule (item 8)', async () => {
    const result = await write('updateUser', token, {
      favoriteSport: '\tChess\n',
      location: '\r\n Lisbon \u00a0',
      handle: `\t${`t_${randomUUID().slice(0, 8)}`}\n`,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data.favoriteSport).toBe('Chess');
    expect(result.data.location).toBe('Lisbon');
    expect(result.data.handle).toMatch(/^t_[0-9a-f]{8}$/);
  });

  it('clears a field that is only whitespace (item 8)', async () => {
    await write('updateUser', token, { favoritePlayer: 'Someone' });
    const result = await write('updateUser', token, { favoritePlayer: ' \t ' });
    expect(result).toMatchObject({ ok: true, data: { favoritePlayer: null } });
  });

  it('still refuses control characters inside the text (item 8)', async () => {
    expectRefused(
      await write('updateUser', token, { favoriteSport: 'Che\tss' }),
      'favoriteSport',
      /^Control characters are not allowed/,
    );
  });

  it.each([
    ['a bidi override', 'name', 'Ann\u202Egnp.exe', /^Bidirectional control/],
    ['a zero-width space', 'favoriteTeam', 'Arsenal\u200B', /^Invisible characters/],
    ['a soft hyphen', 'rivalTeam', 'Arse\u00ADnal', /^Invisible characters/],
    ['a word joiner', 'location', 'Lis\u2060bon', /^Invisible characters/],
    ['a Hangul filler as a name', 'name', '\u3164', /^Invisible characters/],
  ])('refuses %s in %s (item 7)', async (_, field, value, message) => {
    expectRefused(await write('updateUser', token, { [field]: value }), field, message);
  });

  it('keeps emoji ZWJ sequences, flags and presentation selectors (item 7)', async () => {
    const name = '👨‍👩‍👧 🏴󠁧󠁢󠁥󠁮󠁧󠁿 ❤️ 🏃🏽‍♀️';
    const result = await write('updateUser', token, { name });
    expect(result).toMatchObject({ ok: true, data: { name } });
  });

  it.each([
    ['Ａｒｓｅｎａｌ', 'fullwidth letters'],
    ['ARSENAL', 'capitals'],
    ['Arse\uFF4Eal', 'one fullwidth letter'],
  ])('refuses rivalTeam %j against favoriteTeam "Arsenal" (%s) (item 7)', async (rivalTeam) => {
    const own = await app.token();
    await write('updateUser', own, { favoriteTeam: 'Arsenal' });
    expectRefused(
      await write('updateUser', own, { rivalTeam }),
      'rivalTeam',
      'rivalTeam may not be the same team as favoriteTeam',
    );
  });

  it('a stored favoriteTeam is compared after folding too, from the other side (item 7)', async () => {
    const own = await app.token();
    await write('updateUser', own, { rivalTeam: 'Straße FC' });
    expectRefused(await write('updateUser', own, { favoriteTeam: 'STRASSE FC' }), 'favoriteTeam');
  });

  it('stores profileUrl in its canonical WHATWG form (item 11)', async () => {
    for (const [sent, stored] of [
      ['https:evil.com', 'https://evil.com/'],
      ['https:\\\\evil.com', 'https://evil.com/'],
      ['https://evil.com\\@good.com', 'https://evil.com/@good.com'],
      ['  HTTPS://Example.COM:443/a b  ', 'https://example.com/a%20b'],
    ] as const) {
      const result = await write('updateUser', token, { profileUrl: sent });
      expect(result, sent).toMatchObject({ ok: true, data: { profileUrl: stored } });
    }
    const row = await app.db
      .selectFrom('profiles as p')
      .innerJoin('users as u', 'u.id', 'p.userId')
      .select('p.profileUrl')
      .where('p.profileUrl', '=', 'https://example.com/a%20b')
      .execute();
    expect(row.length).toBeGreaterThan(0);
  });

  it.each([
    'https://localhost/',
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://10.0.0.1/',
    'https://192.168.0.10/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:127.0.0.1]/',
  ])('refuses profileUrl %s on both writes (item 11)', async (profileUrl) => {
    for (const procedure of ['updateUser', 'onboardProfile'] as const) {
      expectRefused(
        await write(procedure, await app.token(), { profileUrl }),
        'profileUrl',
        /^Must point to a public host/,
      );
    }
  });

  it.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'])(
    'answers an inherited key name (%s) with the unknown-key message (item 9)',
    async (key) => {
      for (const procedure of ['updateUser', 'onboardProfile'] as const) {
        const result = await write(procedure, token, { [key]: 1 });
        expectRefused(result, key, `Unknown field "${key}"`);
        if (!result.ok) expect(result.message).toContain(`Unknown field "${key}"`);
      }
    },
  );
});

describe('raw bodies no client library would send', () => {
  it('__proto__ is an unknown key on both faces and both writes (item 9)', async () => {
    const token = await app.token();
    const body = '{"__proto__":{"admin":true}}';
    for (const path of ['/api/user', '/api/user/profile']) {
      const method = path === '/api/user' ? 'PATCH' : 'POST';
      const rest = await app.request(method, path, { token, rawBody: body });
      expect(rest.status).toBe(400);
      expect(rest.body.error).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'Unknown field "__proto__"',
        issues: [{ path: '__proto__', message: 'Unknown field "__proto__"' }],
      });
    }
    for (const procedure of ['updateUser', 'onboardProfile']) {
      const trpc = await trpcRaw(procedure, token, body);
      expect(trpc.status).toBe(400);
      expect(trpc.body.error.message).toContain('Unknown field "__proto__"');
      expect(trpc.body.error.data).toMatchObject({
        errorCode: 'VALIDATION_FAILED',
        issues: [{ path: '__proto__', message: 'Unknown field "__proto__"' }],
      });
    }
  });

  it('invalid UTF-8 bytes are a 400, never stored as U+FFFD (item 7)', async () => {
    const token = await app.token();
    // "Bad\xff\xfe" and an overlong encoding of "/": neither is UTF-8.
    for (const bytes of [
      Buffer.concat([Buffer.from('{"name":"Bad'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    ]) {
      const rest = await app.request('PATCH', '/api/user', { token, rawBody: bytes });
      expect(rest.status).toBe(400);
      expect(rest.body.error).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'The request body is not valid UTF-8',
      });
      const trpc = await trpcRaw('updateUser', token, bytes);
      expect(trpc.status).toBe(400);
      expect(trpc.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_FAILED', message: 'The request body is not valid UTF-8' },
      });
    }
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data.name).toBeNull();
  });
});

describe.each(FACES)('forged cursors over %s (item 4)', (face) => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const uuid = randomUUID();
  it.each([
    ['points -2147483648', ['lb', 'all', -2147483648, '1', uuid, 1]],
    ['points 2147483648', ['lb', 'all', 2147483648, '1', uuid, 1]],
    ['seq beyond bigint', ['lb', 'all', 1, '9223372036854775808', uuid, 1]],
    ['seq negative', ['lb', 'all', 1, '-1', uuid, 1]],
    ['seq not digits', ['lb', 'all', 1, '1e3', uuid, 1]],
    ['a timestamp instead of seq', ['lb', 'all', 1, '2026-11-23T15:00:00.000000Z', uuid, 1]],
    ['rank 2147483648', ['lb', 'all', 1, '1', uuid, 2147483648]],
  ])('refuses a leaderboard cursor with %s: 400 naming cursor', async (_, keyset) => {
    const result = await reader(app, face)('leaderboard', await app.token(), {
      cursor: b64(keyset),
    });
    expect(result).toMatchObject({ ok: false, status: 400, code: 'VALIDATION_FAILED' });
    if (!result.ok) expect(result.issues?.map((issue) => issue.path)).toEqual(['cursor']);
  });

  it.each([
    ['id 0', ['pts', '0']],
    ['id beyond bigint', ['pts', '9223372036854775808']],
  ])('refuses a points-history cursor with %s', async (_, keyset) => {
    const result = await reader(app, face)('pointsHistory', await app.token(), {
      cursor: b64(keyset),
    });
    expect(result).toMatchObject({ ok: false, status: 400, code: 'VALIDATION_FAILED' });
  });

  it('accepts the extremes the database holds (an empty page, not an error)', async () => {
    const result = await reader(app, face)('leaderboard', await app.token(), {
      cursor: b64(['lb', 'all', -2147483647, '9223372036854775807', uuid, 2147483647]),
    });
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      data: { entries: [], nextCursor: null },
    });
  });
});

describe.each(FACES)('hostile token subjects over %s (item 5)', (face) => {
  it.each([
    ['NUL', 'a\u0000b', /control characters/],
    [
      '2.7 KB of text',
      Array.from({ length: 900 }, (_, i) =>
        String.fromCharCode(0x4e00 + ((i * 7919) % 20000)),
      ).join(''),
      /longer than 255/,
    ],
    ['256 characters', 'x'.repeat(256), /longer than 255/],
    ['a lone high surrogate', 'x\uD800', /not valid Unicode/],
    ['a lone low surrogate', 'x\uDFFF', /not valid Unicode/],
  ])('a signed token whose sub is %s is a 401, not a 500', async (_, subject, message) => {
    const token = await app.issuer.sign(subject);
    const result = await reader(app, face)('me', token);
    expect(result).toMatchObject({ ok: false, status: 401, code: 'UNAUTHENTICATED' });
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('x\\uFFFD is its own account, and no lone surrogate can reach it', async () => {
    const subject = `${uniqueSubject('fffd')}\uFFFD`;
    const me = await reader(app, face)('me', await app.issuer.sign(subject));
    expect(me.ok).toBe(true);
    const users = await app.db
      .selectFrom('users')
      .select('subject')
      .where('subject', '=', subject)
      .execute();
    expect(users).toEqual([{ subject }]);
    const lone = await reader(app, face)(
      'me',
      await app.issuer.sign(subject.replace('\uFFFD', '\uD800')),
    );
    expect(lone).toMatchObject({ ok: false, status: 401 });
  });
});

// ---------------------------------------------------------------------------
// The HTTP layer: batches, media types, encodings, HEAD.

/** Apps with their own settings on the shared database, closed at the end. */
const extraApps: TestApp[] = [];
afterAll(async () => {
  for (const other of extraApps) await other.close();
});
async function appWith(
  options: Parameters<typeof startTestApp>[0] extends infer O ? Omit<O, 'database'> : never,
): Promise<TestApp> {
  const other = await startTestApp({ database, ...options });
  extraApps.push(other);
  return other;
}

/** Verifications that reached the real verifier (the token cache sits in front of it). */
function counting(verifier: AuthVerifier): AuthVerifier & { count: number } {
  const counted = {
    count: 0,
    verify(token: string) {
      counted.count += 1;
      return verifier.verify(token);
    },
  };
  return counted;
}

/** A log line at error level or worse (the logger writes level labels). */
const isErrorLine = (line: string) => ['error', 'fatal'].includes(JSON.parse(line).level);

const batchPath = (procedure: string, n: number, input?: unknown) =>
  `/trpc/${Array(n).fill(procedure).join(',')}?batch=1${
    input === undefined ? '' : `&input=${encodeURIComponent(JSON.stringify(input))}`
  }`;

async function raw(base: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

describe('tRPC batches (item 1)', () => {
  let counted: ReturnType<typeof counting>;
  let batchApp: TestApp;
  beforeAll(async () => {
    batchApp = await appWith({
      wrapVerifier: (verifier) => (counted = counting(verifier)),
      env: { AUTH_TOKEN_CACHE_SECONDS: '0' },
    });
  });

  it(`refuses a batch over ${MAX_TRPC_BATCH} calls with a 400 before any work`, async () => {
    const forged = await signWithForeignKey({ sub: 'x', iss: batchApp.issuer.issuer });
    const before = { verified: counted.count, fetched: batchApp.issuer.requests };
    for (const n of [MAX_TRPC_BATCH + 1, 4000]) {
      const response = await raw(batchApp.url, batchPath('me', n), {
        headers: { authorization: `Bearer ${forged}` },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_FAILED',
          message: `A tRPC batch may carry at most ${MAX_TRPC_BATCH} calls; this one has ${n}`,
        },
      });
      expect(response.text.length).toBeLessThan(200);
    }
    // A POST batch is refused before its body is read.
    const post = await raw(batchApp.url, batchPath('updateUser', 11), {
      method: 'POST',
      headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(post.status).toBe(400);
    expect(post.body.error.message).toMatch(/at most 10 calls/);
    expect({ verified: counted.count, fetched: batchApp.issuer.requests }).toEqual(before);
  });

  it('verifies the bearer token once per HTTP request, not once per call', async () => {
    const forged = await signWithForeignKey(
      { sub: 'x', iss: batchApp.issuer.issuer },
      { kid: batchApp.issuer.kid },
    );
    const before = counted.count;
    const refused = await raw(batchApp.url, batchPath('me', MAX_TRPC_BATCH), {
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(refused.status).toBe(401);
    expect(refused.body).toHaveLength(MAX_TRPC_BATCH);
    for (const item of refused.body) expect(item.error.data.errorCode).toBe('UNAUTHENTICATED');
    expect(counted.count - before).toBe(1);

    const token = await batchApp.token();
    const valid = await raw(batchApp.url, batchPath('me', MAX_TRPC_BATCH), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(valid.status).toBe(200);
    expect(valid.body).toHaveLength(MAX_TRPC_BATCH);
    const ids = new Set(valid.body.map((item: any) => item.result.data.data.id));
    expect(ids.size).toBe(1);
    expect(counted.count - before).toBe(2);
  });

  it('runs a batch of mutations, each with its own input', async () => {
    const token = await batchApp.token();
    const response = await raw(batchApp.url, batchPath('updateUser', 2), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ 0: { location: 'Porto' }, 1: { favoriteSport: 'Futsal' } }),
    });
    expect(response.status).toBe(200);
    // The calls of a batch run concurrently (one user's writes retry on the version
    // guard), so each answer shows its own field and the stored user has both.
    expect(response.body[0].result.data.data).toMatchObject({ location: 'Porto' });
    expect(response.body[1].result.data.data).toMatchObject({ favoriteSport: 'Futsal' });
    const me = await raw(batchApp.url, '/trpc/me', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.body.result.data.data).toMatchObject({ location: 'Porto', favoriteSport: 'Futsal' });
  });

  it('counts a batch of n calls as n against the per-IP limit, all or nothing', async () => {
    const limited = await appWith({ env: { RATE_LIMIT_PER_IP: '10' } });
    const token = await limited.token();
    const headers = { authorization: `Bearer ${token}` };
    const six = await raw(limited.url, batchPath('me', 6), { headers });
    expect(six.status).toBe(200);
    expect(six.headers.get('ratelimit-remaining')).toBe('4');
    const sixMore = await raw(limited.url, batchPath('me', 6), { headers });
    expect(sixMore.status).toBe(429);
    expect(sixMore.headers.get('retry-after')).toMatch(/^\d+$/);
    const four = await raw(limited.url, batchPath('me', 4), { headers });
    expect(four.status).toBe(200);
    const one = await raw(limited.url, '/trpc/me', { headers });
    expect(one.status).toBe(429);
  });

  it('counts a batch of n calls as n against the per-user limit', async () => {
    const limited = await appWith({ env: { RATE_LIMIT_PER_USER: '10' } });
    const headers = { authorization: `Bearer ${await limited.token()}` };
    const ten = await raw(limited.url, batchPath('me', 10), { headers });
    expect(ten.status).toBe(200);
    expect(ten.headers.get('ratelimit-remaining')).toBe('0');
    const next = await raw(limited.url, '/trpc/me', { headers });
    expect(next.status).toBe(429);
    expect(next.body.error.data.errorCode).toBe('RATE_LIMITED');
  });
});

/** A write on either face with a raw body and headers. */
function rawWrite(
  face: Face,
  token: string,
  body: string | Buffer,
  headers: Record<string, string>,
) {
  const [method, path] = face === 'rest' ? ['PATCH', '/api/user'] : ['POST', '/trpc/updateUser'];
  return raw(app.url, path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
}

const errorCodeOf = (face: Face, response: { body: any }) =>
  face === 'rest' || response.body?.success === false
    ? response.body?.error?.code
    : response.body?.error?.data?.errorCode;

describe.each(FACES)('media types over %s (item 10)', (face) => {
  it.each([
    'application/jsonx',
    'application/json-patch+json',
    'application/json, text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; version=2',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
  ])('refuses Content-Type %s with a 415', async (contentType) => {
    const response = await rawWrite(face, await app.token(), '{"name":"x"}', {
      'content-type': contentType,
    });
    expect(response.status).toBe(415);
    expect(errorCodeOf(face, response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it.each([
    'application/json',
    'Application/JSON; charset=UTF-8',
    'application/json;charset="utf-8"',
  ])('accepts %s', async (contentType) => {
    const response = await rawWrite(face, await app.token(), '{"name":"Media"}', {
      'content-type': contentType,
    });
    expect(response.status).toBe(200);
  });
});

describe.each(FACES)('Content-Encoding over %s (item 2)', (face) => {
  const json = { 'content-type': 'application/json' };
  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('accepts a %s body', async (encoding, compress) => {
    const token = await app.token();
    const response = await rawWrite(face, token, compress('{"name":"Squeezed"}'), {
      ...json,
      'content-encoding': encoding,
    });
    expect(response.status).toBe(200);
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data.name).toBe('Squeezed');
  });

  it.each(['gzip', 'deflate', 'br'])(
    'answers a body that is not valid %s with a 400, and logs no error',
    async (encoding) => {
      const errorsBefore = app.logs.filter(isErrorLine).length;
      const response = await rawWrite(face, await app.token(), '{}', {
        ...json,
        'content-encoding': encoding,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'The request body could not be decoded: it does not match its Content-Encoding',
      });
      expect(app.logs.filter(isErrorLine)).toHaveLength(errorsBefore);
    },
  );

  it.each(['zstd', 'compress', 'x-gzip', 'gzip, br', 'identity;q=1'])(
    'refuses Content-Encoding %s with a 415',
    async (encoding) => {
      const response = await rawWrite(face, await app.token(), '{}', {
        ...json,
        'content-encoding': encoding,
      });
      expect(response.status).toBe(415);
      expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    },
  );

  it('refuses a body that inflates past 16 KiB with a 413', async () => {
    const bomb = gzipSync(`{"name":"${'a'.repeat(1_000_000)}"}`);
    expect(bomb.length).toBeLessThan(16 * 1024);
    const response = await rawWrite(face, await app.token(), bomb, {
      ...json,
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(413);
  });

  it('answers without a token the same way (no 500 on any path)', async () => {
    for (const path of ['/api/user', '/api/nothing-here', '/trpc/updateUser']) {
      const response = await raw(app.url, path, {
        method: path.startsWith('/trpc') ? 'POST' : 'PATCH',
        headers: { ...json, 'content-encoding': 'gzip' },
        body: '{}',
      });
      expect(response.status, path).toBe(400);
    }
  });
});

describe('HEAD (item 12)', () => {
  it.each([
    ['/api/user', 401],
    ['/api/leaderboard', 401],
    ['/api/user/points', 401],
    ['/trpc/me', 401],
    ['/api/no-such-path', 404],
    ['/trpc/noSuchProcedure', 404],
    ['/api/user/profile', 405],
  ])('HEAD %s without a token answers as GET would (%i), never 204', async (path, status) => {
    const head = await raw(app.url, path, { method: 'HEAD' });
    const get = await raw(app.url, path);
    expect(get.status).toBe(status);
    expect(head.status).toBe(status);
    expect(head.text).toBe('');
    expect(head.headers.get('allow')).toBe(get.headers.get('allow'));
  });

  it('HEAD with a token answers 200 with the GET headers and no body', async () => {
    const token = await app.token();
    const head = await raw(app.url, '/api/user', {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.text).toBe('');
  });

  it('HEAD on a subscription answers 405 with Allow: GET at once and opens no stream', async () => {
    const token = await app.token();
    const paths = [
      '/trpc/myEvents',
      '/trpc/leaderboardEvents?input=%7B%22top%22%3A3%7D',
      // tRPC finds the procedure in the last path segment, URL-decoded.
      '/trpc/my%45vents',
      '/trpc/any/where/leaderboardEvents',
    ];
    const withAndWithoutToken: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${token}` },
    ];
    for (const path of paths) {
      for (const headers of withAndWithoutToken) {
        const head = await raw(app.url, path, {
          method: 'HEAD',
          headers,
          signal: AbortSignal.timeout(5_000),
        });
        expect(head.status, path).toBe(405);
        expect(head.headers.get('allow')).toBe('GET');
        expect(head.headers.get('content-type')).toMatch(/^application\/json/);
        expect(head.text).toBe('');
      }
    }
    expect(app.live.hub.openStreams).toBe(0);
    // A batch cannot carry a subscription: tRPC refuses it, as it does the GET.
    const batch = await raw(app.url, '/trpc/myEvents?batch=1', {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    const batchGet = await raw(app.url, '/trpc/myEvents?batch=1', {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    expect(batch.status).toBe(batchGet.status);
    expect(batch.status).toBeGreaterThanOrEqual(400);
    // GET still opens the stream.
    const controller = new AbortController();
    const get = await fetch(`${app.url}/trpc/myEvents`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^text\/event-stream/);
    controller.abort();
  });
});

describe('identity provider failing (item 3)', () => {
  it('backs off: 100 requests while the JWKS answers 500 make at most 2 fetches, each a 503 with Retry-After; one warn with the cause; recovers by itself', async () => {
    const idp = await startTokenIssuer();
    try {
      const failing = await appWith({ issuer: idp });
      idp.setAvailable(false, 'server-error');
      const tokens = await Promise.all(
        Array.from({ length: 10 }, () => idp.sign(uniqueSubject('idp'))),
      );
      const statuses = new Map<number, number>();
      for (let wave = 0; wave < 10; wave += 1) {
        const answers = await Promise.all(
          tokens.map((token) =>
            raw(failing.url, '/api/user', { headers: { authorization: `Bearer ${token}` } }),
          ),
        );
        for (const answer of answers) {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          expect(answer.body).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
          const retryAfter = Number(answer.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(FAILURE_BACKOFF_MS / 1000);
        }
      }
      expect([...statuses]).toEqual([[503, 100]]);
      expect(idp.requests).toBeGreaterThanOrEqual(1);
      expect(idp.requests).toBeLessThanOrEqual(2);

      const warnings = failing.logs
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'identity provider keys cannot be fetched; backing off');
      expect(warnings.length).toBe(idp.requests);
      expect(warnings[0].level).toBe('warn');
      expect(warnings[0].err.message).toContain(idp.jwksUrl);
      expect(warnings[0].err.message).toContain('500');
      expect(failing.logs.some(isErrorLine)).toBe(false);

      // Back up: the next attempt after the backoff succeeds, without a restart.
      idp.setAvailable(true);
      const deadline = Date.now() + 4 * FAILURE_BACKOFF_MS;
      let answer = await raw(failing.url, '/api/user', {
        headers: { authorization: `Bearer ${tokens[0]}` },
      });
      while (answer.status === 503 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        answer = await raw(failing.url, '/api/user', {
          headers: { authorization: `Bearer ${tokens[0]}` },
        });
      }
      expect(answer.status).toBe(200);
      expect(idp.requests).toBeLessThanOrEqual(3);
    } finally {
      await idp.stop();
    }
  });
});
