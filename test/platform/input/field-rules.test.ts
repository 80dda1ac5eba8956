import { randomUUID } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertResponseConforms } from '../../helpers/openapi-conformance.js';
import { FACES, reader, type Face } from '../../helpers/reads.js';
import { route } from '../../helpers/routes.js';
import { useTestApp } from '../../helpers/test-app.js';

/**
 * Field rules over real HTTP on both faces (REST at the documented path, tRPC at /trpc): text
 * trimmed and folded, invisible and control characters refused, URLs canonical, inherited key
 * names, raw bodies no client library would send, forged cursors. docs/SECURITY.md maps the red
 * team's findings (issue 13) to these tests.
 */

const { app, database } = useTestApp();

type WriteResult =
  | { ok: true; status: number; data: any }
  | { ok: false; status: number; code: string; message: string; issues: any[] | undefined };

/** The two writes on either face, with one result shape. */
function writer(face: Face) {
  return async function write(
    procedure: 'updateUser' | 'onboardProfile',
    token: string,
    body: unknown,
  ): Promise<WriteResult> {
    if (face === 'rest') {
      const { method, path } = route(procedure);
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

  it('trims surrounding whitespace, tabs and newlines included, before every rule', async () => {
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

  it('clears a field that is only whitespace', async () => {
    await write('updateUser', token, { favoritePlayer: 'Someone' });
    const result = await write('updateUser', token, { favoritePlayer: ' \t ' });
    expect(result).toMatchObject({ ok: true, data: { favoritePlayer: null } });
  });

  it('still refuses control characters inside the text', async () => {
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
  ])('refuses %s in %s', async (_, field, value, message) => {
    expectRefused(await write('updateUser', token, { [field]: value }), field, message);
  });

  it('keeps emoji ZWJ sequences, flags and presentation selectors', async () => {
    const name = '👨‍👩‍👧 🏴󠁧󠁢󠁥󠁮󠁧󠁿 ❤️ 🏃🏽‍♀️';
    const result = await write('updateUser', token, { name });
    expect(result).toMatchObject({ ok: true, data: { name } });
  });

  it.each([
    ['Ａｒｓｅｎａｌ', 'fullwidth letters'],
    ['ARSENAL', 'capitals'],
    ['Arse\uFF4Eal', 'one fullwidth letter'],
  ])('refuses rivalTeam %j against favoriteTeam "Arsenal" (%s)', async (rivalTeam) => {
    const own = await app.token();
    await write('updateUser', own, { favoriteTeam: 'Arsenal' });
    expectRefused(
      await write('updateUser', own, { rivalTeam }),
      'rivalTeam',
      'rivalTeam may not be the same team as favoriteTeam',
    );
  });

  it('a stored favoriteTeam is compared after folding too, from the other side', async () => {
    const own = await app.token();
    await write('updateUser', own, { rivalTeam: 'Straße FC' });
    expectRefused(await write('updateUser', own, { favoriteTeam: 'STRASSE FC' }), 'favoriteTeam');
  });

  it('stores profileUrl in its canonical WHATWG form', async () => {
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

  it('stores profileUrl as an RFC 3986 URI: what the WHATWG form leaves that RFC 3986 forbids is percent-encoded', async () => {
    for (const [sent, stored] of [
      ['https://example.com/a[b]', 'https://example.com/a%5Bb%5D'],
      ['https://example.com/a|b^c', 'https://example.com/a%7Cb%5Ec'],
      [
        'https://example.com/search?tags[]=derby&q={x}',
        'https://example.com/search?tags%5B%5D=derby&q=%7Bx%7D',
      ],
      ['https://example.com/a`b%zz', 'https://example.com/a%60b%25zz'],
      ['https://example.com/p#one#two', 'https://example.com/p#one%23two'],
      ['https://example.com/a%5Bb', 'https://example.com/a%5Bb'],
    ] as const) {
      // REST: app.request checks the answer against openapi.json, formats included (format: uri).
      const result = await write('updateUser', token, { profileUrl: sent });
      expect(result, sent).toMatchObject({ ok: true, data: { profileUrl: stored } });
      if (!result.ok) continue;
      // tRPC: the same data, checked as the document's answer of PATCH /api/user.
      assertResponseConforms({
        method: 'PATCH',
        url: '/api/user',
        status: 200,
        headers: new Headers({ 'content-type': 'application/json' }),
        text: JSON.stringify({ success: true, data: result.data }),
      });
      expect(new URL(stored).href, 'the stored form parses to itself').toBe(stored);
    }
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
  ])('refuses profileUrl %s on both writes', async (profileUrl) => {
    for (const procedure of ['updateUser', 'onboardProfile'] as const) {
      expectRefused(
        await write(procedure, await app.token(), { profileUrl }),
        'profileUrl',
        /^Must point to a public host/,
      );
    }
  });

  it.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'])(
    'answers an inherited key name (%s) with the unknown-key message',
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
  it('__proto__ is an unknown key on both faces and both writes', async () => {
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

  it('invalid UTF-8 bytes are a 400, never stored as U+FFFD', async () => {
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

describe.each(FACES)('forged cursors over %s', (face) => {
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
