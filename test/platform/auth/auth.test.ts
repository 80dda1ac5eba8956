import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FAILURE_BACKOFF_MS, JWKS_COOLDOWN_MS } from '../../../src/auth/remote-keys.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import {
  hs256With,
  signWithForeignKey,
  startTokenIssuer,
  unsignedToken,
  type TokenIssuer,
} from '../../helpers/token-issuer.js';

let database: TestDatabase;
let issuer: TokenIssuer;
let app: TestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
  app = await startTestApp({ database, issuer, env: { AUTH_AUDIENCE: 'fan-app,fan-web' } });
});

afterAll(async () => {
  await app?.close();
  await issuer?.stop();
  await database?.destroy();
});

const now = () => Math.floor(Date.now() / 1000);
const good = (subject = uniqueSubject()) => issuer.sign(subject, { aud: 'fan-app' });

async function expect401(headers: Record<string, string>, path = '/api/user') {
  const response = await app.request('PATCH', path, { headers, body: { name: 'x' } });
  expect(response.status).toBe(401);
  expect(response.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
  expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  return response;
}

describe('authentication — accepted', () => {
  it('accepts a valid token and keys the user by issuer and subject', async () => {
    const subject = uniqueSubject('auth');
    const response = await app.request('PATCH', '/api/user', {
      token: await good(subject),
      body: { name: 'Authed' },
    });
    expect(response.status).toBe(200);
    const user = await app.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', response.body.data.id)
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ issuer: issuer.issuer, subject });
  });

  it('accepts any configured audience', async () => {
    const token = await issuer.sign(uniqueSubject(), { aud: ['other', 'fan-web'] });
    const response = await app.request('PATCH', '/api/user', { token, body: { name: 'Aud' } });
    expect(response.status).toBe(200);
  });

  it.each(['bearer', 'BEARER', 'Bearer'])(
    'accepts the scheme written %s (RFC 6750)',
    async (scheme) => {
      const response = await app.request('PATCH', '/api/user', {
        headers: { authorization: `${scheme} ${await good()}` },
        body: { name: 'Scheme' },
      });
      expect(response.status).toBe(200);
    },
  );
});

describe('authentication — refused with 401', () => {
  it('refuses a missing Authorization header', async () => {
    await expect401({});
  });

  it('ignores a token in the query string', async () => {
    await expect401({}, `/api/user?access_token=${await good()}`);
  });

  it.each([
    ['another scheme', async () => `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['no token', async () => 'Bearer '],
    ['garbage', async () => 'Bearer not.a.jwt'],
    ['two tokens', async () => `Bearer ${await good()} ${await good()}`],
  ])('refuses %s', async (_label, header) => {
    await expect401({ authorization: await header() });
  });

  it.each([
    ['an expired token', () => issuer.sign(uniqueSubject(), { aud: 'fan-app', exp: now() - 120 })],
    [
      'a token not valid yet',
      () => issuer.sign(uniqueSubject(), { aud: 'fan-app', nbf: now() + 300 }),
    ],
    [
      'a wrong issuer',
      () => issuer.sign(uniqueSubject(), { aud: 'fan-app', iss: 'https://evil.example' }),
    ],
    ['a wrong audience', () => issuer.sign(uniqueSubject(), { aud: 'someone-else' })],
    ['a missing audience', () => issuer.sign(uniqueSubject())],
    [
      'alg none',
      async () => unsignedToken({ sub: 'x', iss: issuer.issuer, aud: 'fan-app', exp: now() + 60 }),
    ],
    [
      'HS256 signed with the public key',
      async () =>
        hs256With(Buffer.from(issuer.publicKeyPem), {
          sub: 'x',
          iss: issuer.issuer,
          aud: 'fan-app',
          exp: now() + 60,
        }),
    ],
    [
      'an unknown kid',
      () => signWithForeignKey({ sub: 'x', iss: issuer.issuer, aud: 'fan-app', exp: now() + 60 }),
    ],
  ])('refuses %s', async (_label, make) => {
    await expect401({ authorization: `Bearer ${await make()}` });
  });

  it('refuses a token over 8 KiB before verifying it', async () => {
    await expect401({ authorization: `Bearer ${'a'.repeat(9 * 1024)}` });
  });
});

describe('authentication — token lifetime (AUTH_MAX_TOKEN_LIFETIME_SECONDS)', () => {
  const day = 86_400;
  const patch = (token: string) =>
    app.request('PATCH', '/api/user', { token, body: { name: 'Lifetime' } });

  it.each([
    [
      'a token issued now that expires in the year 2200',
      () => ({ iat: now(), exp: 7_258_118_400 }),
    ],
    ['a day and a minute, iat to exp', () => ({ iat: now() - 60, exp: now() + day })],
    ['no iat, expiring in a week', () => ({ iat: undefined, exp: now() + 7 * day })],
    [
      'an iat in the future, expiring in a week',
      () => ({ iat: now() + 6 * day, exp: now() + 7 * day }),
    ],
  ])('refuses %s (default: 24 h), on REST and tRPC', async (_, claims) => {
    const subject = uniqueSubject('lifetime');
    const token = await issuer.sign(subject, { aud: 'fan-app', ...claims() });
    const response = await expect401({ authorization: `Bearer ${token}` });
    expect(response.body.error.message).toMatch(/valid for longer than this service accepts/);
    await expect(app.trpc(token).me.query()).rejects.toMatchObject({
      data: { errorCode: 'UNAUTHENTICATED', httpStatus: 401 },
    });
    const users = await app.db
      .selectFrom('users')
      .select('id')
      .where('subject', '=', subject)
      .execute();
    expect(users).toEqual([]);
  });

  it.each([
    ['exactly 24 h, iat to exp', () => ({ iat: now(), exp: now() + day })],
    ['issued 20 h ago, valid for 24 h', () => ({ iat: now() - 20 * 3600, exp: now() + 4 * 3600 })],
    ['no iat, expiring in an hour', () => ({ iat: undefined, exp: now() + 3600 })],
  ])('accepts %s', async (_, claims) => {
    const response = await patch(
      await issuer.sign(uniqueSubject(), { aud: 'fan-app', ...claims() }),
    );
    expect(response.status, response.text).toBe(200);
  });

  it('holds for service tokens too, and follows the configured limit', async () => {
    const other = await startTestApp({
      database,
      issuer,
      env: { AUTH_MAX_TOKEN_LIFETIME_SECONDS: '600' },
    });
    try {
      const short = await issuer.sign(uniqueSubject(), { iat: now(), exp: now() + 600 });
      expect((await other.request('GET', '/api/user', { token: short })).status).toBe(200);
      const long = await issuer.sign(uniqueSubject(), { iat: now(), exp: now() + 3600 });
      const refused = await other.request('GET', '/api/user', { token: long });
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toContain('at most 600 s');
      const service = await issuer.signService('lifetime-service', 'admin', {
        iat: now(),
        exp: now() + 3600,
      });
      const asService = await other.request('GET', '/api/admin/definitions', { token: service });
      expect(asService.status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('authentication — key sources over HTTP', () => {
  async function withApp(env: Record<string, string>, run: (app: TestApp) => Promise<void>) {
    const other = await startTestApp({ database, issuer, env });
    try {
      await run(other);
    } finally {
      await other.close();
    }
  }

  it('uses OIDC discovery when only AUTH_ISSUER is set', async () => {
    await withApp({ AUTH_JWKS_URL: '' }, async (other) => {
      const response = await other.request('PATCH', '/api/user', {
        token: await issuer.sign(uniqueSubject()),
        body: { name: 'OIDC' },
      });
      expect(response.status).toBe(200);
    });
  });

  it('uses a static PEM public key', async () => {
    await withApp({ AUTH_JWKS_URL: '', AUTH_PUBLIC_KEY: issuer.publicKeyPem }, async (other) => {
      const ok = await other.request('PATCH', '/api/user', {
        token: await issuer.sign(uniqueSubject()),
        body: { name: 'PEM' },
      });
      expect(ok.status).toBe(200);
      const forged = await other.request('PATCH', '/api/user', {
        token: await hs256With(Buffer.from(issuer.publicKeyPem), {
          sub: 'x',
          iss: issuer.issuer,
          exp: now() + 60,
        }),
        body: { name: 'PEM' },
      });
      expect(forged.status).toBe(401);
    });
  });

  it('uses an HS256 shared secret', async () => {
    const secret = 'a-test-secret-that-is-long-enough-123';
    await withApp({ AUTH_JWKS_URL: '', AUTH_HS256_SECRET: secret }, async (other) => {
      const token = await hs256With(Buffer.from(secret), {
        sub: uniqueSubject(),
        iss: issuer.issuer,
        exp: now() + 60,
      });
      const ok = await other.request('PATCH', '/api/user', { token, body: { name: 'HS' } });
      expect(ok.status).toBe(200);
      const asymmetric = await other.request('PATCH', '/api/user', {
        token: await issuer.sign(uniqueSubject()),
        body: { name: 'HS' },
      });
      expect(asymmetric.status).toBe(401);
    });
  });
});

describe('authentication — key source down', () => {
  it('answers 503 while the JWKS cannot be fetched, and recovers without a restart', async () => {
    const flaky = await startTokenIssuer();
    const other = await startTestApp({ database, issuer: flaky });
    try {
      flaky.setAvailable(false);
      const down = await other.request('PATCH', '/api/user', {
        token: await flaky.sign(uniqueSubject()),
        body: { name: 'Down' },
      });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);

      // It recovers by itself once its failure backoff (FAILURE_BACKOFF_MS) has passed.
      flaky.setAvailable(true);
      const token = await flaky.sign(uniqueSubject());
      const deadline = Date.now() + 4 * FAILURE_BACKOFF_MS;
      let up = await other.request('PATCH', '/api/user', { token, body: { name: 'Up' } });
      while (up.status === 503 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        up = await other.request('PATCH', '/api/user', { token, body: { name: 'Up' } });
      }
      expect(up.status).toBe(200);
    } finally {
      await other.close();
      await flaky.stop();
    }
  });
});

describe('token attacks — proofs over HTTP', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a token over 8 KiB cheaply: no verification, no key fetch', async () => {
    const own = await startTokenIssuer();
    const fresh = await startTestApp({ database, issuer: own });
    try {
      // A genuine, correctly signed token: only its size makes it unacceptable.
      const huge = await own.sign(uniqueSubject(), { padding: 'p'.repeat(9 * 1024) });
      expect(huge.length).toBeGreaterThan(8 * 1024);
      const refused = await fresh.request('PATCH', '/api/user', {
        token: huge,
        body: { name: 'Huge' },
      });
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/longer than 8 KiB/);
      expect([own.requests, own.discoveryRequests]).toEqual([0, 0]);

      // The counter does move when a token is actually verified.
      const ok = await fresh.request('PATCH', '/api/user', {
        token: await own.sign(uniqueSubject()),
        body: { name: 'Small' },
      });
      expect(ok.status).toBe(200);
      expect(own.requests).toBe(1);
    } finally {
      await fresh.close();
      await own.stop();
    }
  });

  it('accepts a rotated key published in the JWKS without a restart', async () => {
    const own = await startTokenIssuer();
    const running = await startTestApp({ database, issuer: own });
    try {
      const before = await own.sign(uniqueSubject());
      expect(
        (await running.request('PATCH', '/api/user', { token: before, body: { name: 'K1' } }))
          .status,
      ).toBe(200);
      expect(own.requests).toBe(1);

      await own.rotate({ keepPrevious: true });
      // jose refetches for an unknown kid once its cooldown has passed; move the clock
      // instead of sleeping.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1_000);
      const after = await own.sign(uniqueSubject());
      const rotated = await running.request('PATCH', '/api/user', {
        token: after,
        body: { name: 'K2' },
      });
      expect(rotated.status).toBe(200);
      expect(own.requests).toBe(2);
      // The previous key is still published, so its tokens still work.
      const old = await running.request('PATCH', '/api/user', {
        token: await own.sign(uniqueSubject(), {}, { kid: decodeProtectedHeader(before).kid! }),
        body: { name: 'K1' },
      });
      expect(old.status).toBe(401); // signed by the new key under the old kid: forged
      expect(
        (await running.request('PATCH', '/api/user', { token: before, body: { name: 'K1' } }))
          .status,
      ).toBe(200);
    } finally {
      vi.useRealTimers();
      await running.close();
      await own.stop();
    }
  });

  it('refuses alg none and an HS256 token keyed with the public key on the tRPC face too', async () => {
    for (const token of [
      unsignedToken({ sub: 'x', iss: issuer.issuer, aud: 'fan-app', exp: now() + 60 }),
      await hs256With(
        Buffer.from(issuer.publicKeyPem),
        { sub: 'x', iss: issuer.issuer, aud: 'fan-app', exp: now() + 60 },
        { kid: issuer.kid },
      ),
    ]) {
      const response = await fetch(`${app.url}/trpc/updateUser`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"name":"x"}',
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(((await response.json()) as any).error.data.errorCode).toBe('UNAUTHENTICATED');
    }
  });

  it('ignores ?access_token= even when the header is absent on the tRPC face', async () => {
    const response = await fetch(`${app.url}/trpc/updateUser?access_token=${await good()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(response.status).toBe(401);
  });
});
