import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  SignJWT,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
} from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_TOKEN_LENGTH, parseBearer } from '../../src/auth/bearer.js';
import { devKeyPath, loadOrCreateDevKey, signDevToken } from '../../src/auth/dev-idp.js';
import { createAuthVerifier } from '../../src/auth/key-sources.js';
import { FAILURE_BACKOFF_MS, JWKS_COOLDOWN_MS } from '../../src/auth/remote-keys.js';
import type { AuthVerifier } from '../../src/auth/verifier.js';
import { ConfigError, DEV_ISSUER, type AuthConfig } from '../../src/config.js';
import { AppError } from '../../src/app-error.js';
import {
  hs256With,
  signWithForeignKey,
  startTokenIssuer,
  unsignedToken,
  type Outage,
  type TokenIssuer,
} from '../helpers/token-issuer.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const now = () => Math.floor(Date.now() / 1000);
const UNAVAILABLE_MESSAGE = "The identity provider's keys cannot be fetched right now";

let idp: TokenIssuer; // ES256
let rsaIdp: TokenIssuer; // RS256
let dataDir: string;
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [idp, rsaIdp] = await Promise.all([startTokenIssuer(), startTokenIssuer({ alg: 'RS256' })]);
  dataDir = await tempDir();
});

afterEach(async () => {
  vi.useRealTimers();
  while (cleanup.length > 0) await cleanup.pop()?.();
});

afterAll(async () => {
  await Promise.all([idp?.stop(), rsaIdp?.stop()]);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'auth-test-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A token issuer stopped after the current test. */
async function ownIssuer(options?: Parameters<typeof startTokenIssuer>[0]): Promise<TokenIssuer> {
  const issuer = await startTokenIssuer(options);
  cleanup.push(() => issuer.stop());
  return issuer;
}

const jwksConfig = (issuer: TokenIssuer, audience: string[] = []): AuthConfig => ({
  kind: 'jwks',
  issuer: issuer.issuer,
  jwksUrl: issuer.jwksUrl,
  audience,
});
const oidcConfig = (issuer: TokenIssuer, audience: string[] = []): AuthConfig => ({
  kind: 'oidc',
  issuer: issuer.issuer,
  audience,
});
const publicKeyConfig = (issuer: string, publicKey: string): AuthConfig => ({
  kind: 'publicKey',
  issuer,
  publicKey,
  audience: [],
});

function verifierFor(auth: AuthConfig, options: { fetchTimeoutMs?: number } = {}) {
  return createAuthVerifier(auth, { dataDir, ...options });
}

async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(outcome)}`);
}

async function expectRefused(verifier: AuthVerifier, token: string, message: RegExp) {
  const error = await rejectionOf(verifier.verify(token));
  expect({ code: error.code, message: error.message }).toEqual({
    code: 'UNAUTHENTICATED',
    message: expect.stringMatching(message),
  });
}

async function expectUnavailable(verifier: AuthVerifier, token: string) {
  const error = await rejectionOf(verifier.verify(token));
  expect({ code: error.code, message: error.message }).toEqual({
    code: 'UNAVAILABLE',
    message: UNAVAILABLE_MESSAGE,
  });
  // The time left in the failure backoff, in whole seconds.
  expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(error.retryAfterSeconds).toBeLessThanOrEqual(FAILURE_BACKOFF_MS / 1000);
  return error;
}

function bearerError(header: string | undefined): AppError {
  try {
    parseBearer(header);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`parseBearer accepted ${JSON.stringify(header)}`);
}

function rsaPublicPem(modulusLength: number): string {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength });
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------

describe('parseBearer', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme written %s', (scheme) => {
    expect(parseBearer(`${scheme} abc.DEF-_~.ghi`)).toBe('abc.DEF-_~.ghi');
  });

  it('accepts token68 characters with padding', () => {
    expect(parseBearer('Bearer ab+c/d==')).toBe('ab+c/d==');
  });

  it.each([undefined, '', '   '])('refuses a missing header (%j)', (header) => {
    const error = bearerError(header);
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toMatch(/bearer token is required/i);
  });

  it.each(['Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc', 'Bearer\tabc'])(
    'refuses another scheme (%j)',
    (header) => {
      const error = bearerError(header);
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(error.message).toMatch(/Bearer scheme/);
    },
  );

  it.each(['Bearer', 'Bearer ', 'bearer    '])(
    'refuses a header without a token (%j)',
    (header) => {
      expect(bearerError(header).message).toMatch(/no token/);
    },
  );

  it.each(['Bearer a.b.c d.e.f', 'Bearer a,b', 'Bearer "abc"', 'Bearer abc=def', 'Bearer é'])(
    'refuses a malformed token (%j)',
    (header) => {
      const error = bearerError(header);
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(error.message).toMatch(/exactly one bearer token/);
    },
  );

  it('accepts a token of exactly 8 KiB and refuses a longer one before any crypto', () => {
    expect(parseBearer(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH)}`)).toHaveLength(8192);
    const error = bearerError(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH + 1)}`);
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toMatch(/longer than 8 KiB/);
    // A huge header is refused by its length alone (not by the token68 pattern).
    expect(bearerError(`Bearer ${'a'.repeat(1024 * 1024)}`).message).toMatch(/longer than 8 KiB/);
  });
});

// ---------------------------------------------------------------------------

describe('key sources accept a good token', () => {
  it('OIDC discovery (AUTH_ISSUER alone), fetched lazily and once', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(oidcConfig(own));
    expect([own.discoveryRequests, own.requests]).toEqual([0, 0]);

    const token = await own.sign('alice');
    await expect(verifier.verify(token)).resolves.toEqual({
      kind: 'fan',
      issuer: own.issuer,
      subject: 'alice',
      expiresAt: decodeJwt(token).exp,
    });
    await verifier.verify(await own.sign('bob'));
    expect([own.discoveryRequests, own.requests]).toEqual([1, 1]);
  });

  it('a JWKS URL, fetched lazily', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(jwksConfig(own));
    expect(own.requests).toBe(0);
    const token = await own.sign('alice');
    await expect(verifier.verify(token)).resolves.toEqual({
      kind: 'fan',
      issuer: own.issuer,
      subject: 'alice',
      expiresAt: decodeJwt(token).exp,
    });
    expect([own.discoveryRequests, own.requests]).toEqual([0, 1]);
  });

  it('a JWKS URL with an RSA key; its JWK "alg" (RS256) binds the algorithm', async () => {
    const verifier = await verifierFor(jwksConfig(rsaIdp));
    await expect(verifier.verify(await rsaIdp.sign('rs'))).resolves.toMatchObject({
      subject: 'rs',
    });
    await expectRefused(
      verifier,
      await rsaIdp.sign('ps', {}, { alg: 'PS256' }),
      /key the identity provider does not publish/,
    );
  });

  it('a static PEM (SPKI) EC public key', async () => {
    const verifier = await verifierFor(publicKeyConfig(idp.issuer, idp.publicKeyPem));
    const requests = idp.requests;
    await expect(verifier.verify(await idp.sign('pem'))).resolves.toMatchObject({
      issuer: idp.issuer,
      subject: 'pem',
    });
    expect(idp.requests).toBe(requests);
  });

  it('a static PEM written on one line with literal \\n (as in env files)', async () => {
    const oneLine = idp.publicKeyPem.trim().replace(/\n/g, '\\n');
    const verifier = await verifierFor(publicKeyConfig(idp.issuer, oneLine));
    await expect(verifier.verify(await idp.sign('pem'))).resolves.toMatchObject({ subject: 'pem' });
  });

  it('a static PEM RSA public key: RS256 and PS256 accepted, ES256 not', async () => {
    const verifier = await verifierFor(publicKeyConfig(rsaIdp.issuer, rsaIdp.publicKeyPem));
    await expect(verifier.verify(await rsaIdp.sign('rs'))).resolves.toMatchObject({
      subject: 'rs',
    });
    await expect(
      verifier.verify(await rsaIdp.sign('ps', {}, { alg: 'PS512' })),
    ).resolves.toMatchObject({ subject: 'ps' });
    await expectRefused(
      verifier,
      await signWithForeignKey({ sub: 'x', iss: rsaIdp.issuer, exp: now() + 60 }),
      /algorithm this service does not accept/,
    );
  });

  it('a static JWK public key (JSON string)', async () => {
    const verifier = await verifierFor(publicKeyConfig(idp.issuer, JSON.stringify(idp.publicJwk)));
    await expect(verifier.verify(await idp.sign('jwk'))).resolves.toEqual({
      kind: 'fan',
      issuer: idp.issuer,
      subject: 'jwk',
      expiresAt: expect.any(Number),
    });
  });

  it('a static RSA JWK without "alg" infers RS*/PS*', async () => {
    const { alg: _alg, ...jwk } = rsaIdp.publicJwk;
    const verifier = await verifierFor(publicKeyConfig(rsaIdp.issuer, JSON.stringify(jwk)));
    await expect(
      verifier.verify(await rsaIdp.sign('ps', {}, { alg: 'PS256' })),
    ).resolves.toMatchObject({ subject: 'ps' });
  });

  it('a static Ed25519 public key (EdDSA)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('Ed25519', { extractable: true });
    const issuer = 'https://ed.example';
    const verifier = await verifierFor(publicKeyConfig(issuer, await exportSPKI(publicKey)));
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer(issuer)
      .setSubject('ed')
      .setExpirationTime(now() + 60)
      .sign(privateKey);
    await expect(verifier.verify(token)).resolves.toMatchObject({ issuer, subject: 'ed' });
  });

  it('an HS256 shared secret, and only HS256', async () => {
    const secret = 'a-test-secret-that-is-long-enough-123';
    const issuer = 'https://hs.example';
    const verifier = await verifierFor({ kind: 'hs256', issuer, secret, audience: [] });
    const claims = { sub: 'hs', iss: issuer, exp: now() + 60 };
    await expect(
      verifier.verify(await hs256With(new TextEncoder().encode(secret), claims)),
    ).resolves.toMatchObject({ issuer, subject: 'hs' });

    await expectRefused(
      verifier,
      await hs256With(new TextEncoder().encode(`${secret}-wrong`), claims),
      /signature is not valid/,
    );
    await expectRefused(
      verifier,
      await idp.sign('es', { iss: issuer }),
      /algorithm this service does not accept/,
    );
  });
});

describe('a bad static key is a configuration error', () => {
  it.each([
    [
      'a private key PEM',
      async () => exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey),
    ],
    [
      'a private JWK',
      async () =>
        JSON.stringify(
          await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey),
        ),
    ],
    ['a symmetric JWK', async () => JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' })],
    ['an RSA key under 2048 bits', async () => rsaPublicPem(1024)],
    [
      'a JWK whose alg does not fit the key',
      async () => JSON.stringify({ ...idp.publicJwk, alg: 'RS256' }),
    ],
    ['garbage', async () => 'not a key'],
    ['broken JSON', async () => '{"kty":'],
  ])('%s', async (_label, key) => {
    await expect(verifierFor(publicKeyConfig(idp.issuer, await key()))).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});

// ---------------------------------------------------------------------------

describe('claim checks', () => {
  let verifier: AuthVerifier;
  let openVerifier: AuthVerifier; // no audience configured
  beforeAll(async () => {
    verifier = await verifierFor(jwksConfig(idp, ['fan-app', 'fan-web']));
    openVerifier = await verifierFor(jwksConfig(idp));
  });

  it.each([['fan-web'], [['other', 'fan-web']], [['fan-app']]])(
    'accepts a configured audience in aud %j',
    async (aud) => {
      await expect(verifier.verify(await idp.sign('aud', { aud }))).resolves.toMatchObject({
        subject: 'aud',
      });
    },
  );

  it.each([['someone-else'], [['other', 'another']], [[]]])(
    'refuses aud %j when audiences are configured',
    async (aud) => {
      await expectRefused(verifier, await idp.sign('aud', { aud }), /audience mismatch/);
    },
  );

  it('refuses a token without aud when audiences are configured, and ignores aud otherwise', async () => {
    await expectRefused(verifier, await idp.sign('aud'), /no audience/);
    await expect(
      openVerifier.verify(await idp.sign('aud', { aud: 'anything' })),
    ).resolves.toMatchObject({ subject: 'aud' });
  });

  it('refuses a wrong or missing issuer', async () => {
    await expectRefused(
      openVerifier,
      await idp.sign('x', { iss: 'https://evil.example' }),
      /not issued by the expected issuer/,
    );
    await expectRefused(openVerifier, await idp.sign('x', { iss: undefined }), /no issuer/);
  });

  it('refuses a token expired beyond the 30 s tolerance', async () => {
    await expectRefused(openVerifier, await idp.sign('x', { exp: now() - 120 }), /has expired/);
    await expectRefused(openVerifier, await idp.sign('x', { exp: now() - 35 }), /has expired/);
  });

  it('accepts a token expired within the 30 s tolerance', async () => {
    await expect(
      openVerifier.verify(await idp.sign('late', { exp: now() - 20 })),
    ).resolves.toMatchObject({ subject: 'late' });
  });

  it('refuses nbf in the future beyond the tolerance, accepts it within', async () => {
    await expectRefused(openVerifier, await idp.sign('x', { nbf: now() + 300 }), /not valid yet/);
    await expect(
      openVerifier.verify(await idp.sign('early', { nbf: now() + 20 })),
    ).resolves.toMatchObject({ subject: 'early' });
  });

  it('refuses a token without exp, or with a non-numeric exp', async () => {
    await expectRefused(openVerifier, await idp.sign('x', { exp: undefined }), /no expiry time/);
    await expectRefused(
      openVerifier,
      await idp.sign('x', { exp: String(now() + 60) as unknown as number }),
      /"exp" claim is not valid/,
    );
  });

  it.each([
    ['missing', null, {}],
    ['empty', '', {}],
    ['a number', 'ignored', { sub: 42 }],
  ] as const)('refuses a token whose sub is %s', async (_label, subject, claims) => {
    await expectRefused(openVerifier, await idp.sign(subject, { ...claims }), /no subject/);
  });

  it('refuses alg none against JWKS, static key and HS256 verifiers', async () => {
    const claims = { sub: 'x', iss: idp.issuer, exp: now() + 60 };
    const none = unsignedToken(claims, { kid: idp.kid });
    const verifiers = [
      openVerifier,
      await verifierFor(publicKeyConfig(idp.issuer, idp.publicKeyPem)),
      await verifierFor({
        kind: 'hs256',
        issuer: idp.issuer,
        secret: 'a-test-secret-that-is-long-enough-123',
        audience: [],
      }),
    ];
    for (const v of verifiers)
      await expectRefused(v, none, /algorithm this service does not accept/);
  });

  it('refuses HS256 signed with the public key (RS/HS confusion) against JWKS and static keys', async () => {
    for (const issuer of [idp, rsaIdp]) {
      const claims = { sub: 'x', iss: issuer.issuer, exp: now() + 60 };
      const pemBytes = new TextEncoder().encode(issuer.publicKeyPem);
      const jwkBytes = new TextEncoder().encode(JSON.stringify(issuer.publicJwk));
      const verifiers = [
        await verifierFor(jwksConfig(issuer)),
        await verifierFor(oidcConfig(issuer)),
        await verifierFor(publicKeyConfig(issuer.issuer, issuer.publicKeyPem)),
        await verifierFor(publicKeyConfig(issuer.issuer, JSON.stringify(issuer.publicJwk))),
      ];
      for (const v of verifiers) {
        for (const secret of [pemBytes, jwkBytes]) {
          await expectRefused(
            v,
            await hs256With(secret, claims, { kid: issuer.kid }),
            /algorithm this service does not accept/,
          );
        }
      }
    }
  });

  it('refuses a token signed by a key with a kid the JWKS does not know', async () => {
    const claims = { sub: 'x', iss: idp.issuer, exp: now() + 60 };
    await expectRefused(
      openVerifier,
      await signWithForeignKey(claims),
      /key the identity provider does not publish/,
    );
  });

  it('refuses a token signed by another key under a real kid, and a tampered token', async () => {
    const claims = { sub: 'x', iss: idp.issuer, exp: now() + 60 };
    await expectRefused(
      openVerifier,
      await signWithForeignKey(claims, { kid: idp.kid }),
      /signature is not valid/,
    );

    const [header, , signature] = (await idp.sign('mallory')).split('.');
    const payload = Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url');
    await expectRefused(
      openVerifier,
      `${header}.${payload}.${signature}`,
      /signature is not valid/,
    );
  });

  it.each(['garbage', 'not.a.jwt', 'a.b.c.d', 'eyJhbGciOiJFUzI1NiJ9.e30', '...'])(
    'refuses the garbage string %j',
    async (token) => {
      await expectRefused(openVerifier, token, /malformed/);
    },
  );

  it('refuses an over-long or empty token without fetching keys', async () => {
    const own = await ownIssuer();
    const v = await verifierFor(jwksConfig(own));
    await expectRefused(v, 'a'.repeat(MAX_TOKEN_LENGTH + 1), /longer than 8 KiB/);
    await expectRefused(v, '', /required/);
    expect(own.requests).toBe(0);
  });
});

// ---------------------------------------------------------------------------

describe('key source down', () => {
  it.each<Outage>(['status', 'reset', 'hang', 'garbage', 'not-a-jwks'])(
    'JWKS fetch failing (%s) → UNAVAILABLE, then the same verifier recovers',
    async (how) => {
      const own = await ownIssuer();
      const verifier = await verifierFor(jwksConfig(own), { fetchTimeoutMs: 300 });
      own.setAvailable(false, how);
      const error = await expectUnavailable(verifier, await own.sign('down'));
      expect(String((error.cause as Error).message)).toContain(own.jwksUrl);
      expect(own.requests).toBe(1);

      // Backing off: no request leaves, even once the provider is back.
      own.setAvailable(true);
      const waiting = await expectUnavailable(verifier, await own.sign('waiting'));
      expect(waiting.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(waiting.retryAfterSeconds).toBeLessThanOrEqual(FAILURE_BACKOFF_MS / 1000);
      expect(own.requests).toBe(1);

      // Once the backoff has passed, the next request tries again and recovers.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + FAILURE_BACKOFF_MS + 1);
      await expect(verifier.verify(await own.sign('up'))).resolves.toMatchObject({
        subject: 'up',
      });
      expect(own.requests).toBe(2);
    },
  );

  it('backs off for everyone after a failure: one attempt per FAILURE_BACKOFF_MS however many ask', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(jwksConfig(own));
    own.setAvailable(false, 'server-error');
    const token = await own.sign('down');
    const errors = await Promise.all(
      Array.from({ length: 50 }, () => rejectionOf(verifier.verify(token))),
    );
    expect(new Set(errors.map((error) => error.code))).toEqual(new Set(['UNAVAILABLE']));
    for (let i = 0; i < 50; i += 1) await expectUnavailable(verifier, token);
    expect(own.requests).toBe(1);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + FAILURE_BACKOFF_MS + 1);
    await expectUnavailable(verifier, token);
    expect(own.requests).toBe(2);
    for (let i = 0; i < 50; i += 1) await expectUnavailable(verifier, token);
    expect(own.requests).toBe(2);
  });

  it('keeps verifying with keys it already has while backing off', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(jwksConfig(own));
    await verifier.verify(await own.sign('first'));
    own.setAvailable(false, 'server-error');
    // An unknown kid after jose's cooldown makes a fetch, which fails: backing off starts.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1_000);
    await expectUnavailable(verifier, await own.sign('x', {}, { kid: 'unknown-kid' }));
    expect(own.requests).toBe(2);
    // Tokens signed with the cached key still verify; nothing is fetched.
    await expect(verifier.verify(await own.sign('cached'))).resolves.toMatchObject({
      subject: 'cached',
    });
    expect(own.requests).toBe(2);
  });

  it('JWKS host not listening → UNAVAILABLE; start-up does not need it', async () => {
    const port = await closedPort();
    const verifier = await verifierFor({
      kind: 'jwks',
      issuer: idp.issuer,
      jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
      audience: [],
    });
    await expectUnavailable(verifier, await idp.sign('x'));
  });

  it('OIDC discovery down at first, then up → works with the same verifier', async () => {
    const own = await ownIssuer();
    own.setAvailable(false);
    const verifier = await verifierFor(oidcConfig(own));
    expect(own.discoveryRequests).toBe(0);

    await expectUnavailable(verifier, await own.sign('down'));
    await expectUnavailable(verifier, await own.sign('down'));
    // The second request met the backoff: it did not ask again.
    expect([own.discoveryRequests, own.requests]).toEqual([1, 0]);

    own.setAvailable(true);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + FAILURE_BACKOFF_MS + 1);
    await expect(verifier.verify(await own.sign('up'))).resolves.toMatchObject({
      issuer: own.issuer,
      subject: 'up',
    });
    await verifier.verify(await own.sign('again'));
    expect([own.discoveryRequests, own.requests]).toEqual([2, 1]);
  });

  it.each<Outage>(['reset', 'hang', 'garbage', 'not-a-jwks'])(
    'OIDC discovery failing (%s) → UNAVAILABLE',
    async (how) => {
      const own = await ownIssuer();
      own.setAvailable(false, how);
      const verifier = await verifierFor(oidcConfig(own), { fetchTimeoutMs: 300 });
      const error = await expectUnavailable(verifier, await own.sign('x'));
      expect(String((error.cause as Error).message)).toContain('openid-configuration');
    },
  );

  it('OIDC discovery naming another issuer → UNAVAILABLE (never a pass)', async () => {
    const own = await ownIssuer();
    // Same discovery URL (trailing slash stripped), but the document's issuer differs.
    const verifier = await verifierFor({ kind: 'oidc', issuer: `${own.issuer}/`, audience: [] });
    const error = await expectUnavailable(verifier, await own.sign('x', { iss: `${own.issuer}/` }));
    expect(String((error.cause as Error).message)).toMatch(/is not AUTH_ISSUER/);
  });

  it('keeps using cached keys while the JWKS is down', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(jwksConfig(own));
    await verifier.verify(await own.sign('first'));
    own.setAvailable(false);
    await expect(verifier.verify(await own.sign('cached'))).resolves.toMatchObject({
      subject: 'cached',
    });
    expect(own.requests).toBe(1);
  });
});

// ---------------------------------------------------------------------------

describe('key rotation', () => {
  it('picks up a rotated key (new kid) without recreating the verifier', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(jwksConfig(own));
    const oldToken = await own.sign('old');
    await expect(verifier.verify(oldToken)).resolves.toMatchObject({ subject: 'old' });
    expect(own.requests).toBe(1);

    await own.rotate(); // the JWKS now serves only the new key
    const newToken = await own.sign('new');
    expect(decodeProtectedHeader(newToken).kid).not.toBe(decodeProtectedHeader(oldToken).kid);

    // Right after a fetch, jose's cooldown refuses an unknown kid without refetching.
    await expectRefused(verifier, newToken, /does not publish/);
    expect(own.requests).toBe(1);

    // Once the cooldown has passed, the unknown kid triggers a refetch and is accepted.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1_000);
    await expect(verifier.verify(newToken)).resolves.toMatchObject({ subject: 'new' });
    expect(own.requests).toBe(2);

    // The retired key is gone from the JWKS, so its tokens are now refused.
    await expectRefused(verifier, oldToken, /does not publish/);
  });

  it('with both keys published, a token without kid is tried against each', async () => {
    const own = await ownIssuer();
    const verifier = await verifierFor(jwksConfig(own));
    const oldNoKid = await own.sign('old', {}, { kid: null });
    await own.rotate({ keepPrevious: true });
    const newNoKid = await own.sign('new', {}, { kid: null });

    await expect(verifier.verify(oldNoKid)).resolves.toMatchObject({ subject: 'old' });
    await expect(verifier.verify(newNoKid)).resolves.toMatchObject({ subject: 'new' });
    await expectRefused(
      verifier,
      await signWithForeignKey({ sub: 'x', iss: own.issuer, exp: now() + 60 }, { kid: null }),
      /signature is not valid/,
    );
  });
});

// ---------------------------------------------------------------------------

describe('development identity provider', () => {
  const devConfig: AuthConfig = { kind: 'dev', issuer: DEV_ISSUER, audience: [] };

  it('signDevToken round-trips through the dev verifier', async () => {
    const dir = await tempDir();
    const token = await signDevToken(dir, 'alice');
    const verifier = await createAuthVerifier(devConfig, { dataDir: dir });
    const principal = await verifier.verify(token);
    expect(principal).toMatchObject({ issuer: DEV_ISSUER, subject: 'alice' });
    expect(principal.expiresAt - now()).toBeGreaterThan(12 * 3600 - 10);
    expect(principal.expiresAt - now()).toBeLessThanOrEqual(12 * 3600);

    const short = decodeJwt(await signDevToken(dir, 'bob', { ttlSeconds: 60 }));
    expect(short.exp! - short.iat!).toBe(60);
  });

  it('signDevToken with scopes makes a service token the dev verifier reads as one', async () => {
    const dir = await tempDir();
    const token = await signDevToken(dir, 'checkin-service', { scopes: ['events:write', 'admin'] });
    expect(decodeJwt(token)).toMatchObject({
      sub: 'checkin-service',
      client_id: 'checkin-service',
      scope: 'events:write admin',
    });
    const verifier = await createAuthVerifier(devConfig, { dataDir: dir });
    expect(await verifier.verify(token)).toEqual({
      kind: 'service',
      issuer: DEV_ISSUER,
      clientId: 'checkin-service',
      scopes: ['events:write', 'admin'],
      expiresAt: decodeJwt(token).exp,
    });
  });

  it('reuses the key file across calls (same kid), stored with mode 0600', async () => {
    const dir = await tempDir();
    const first = await loadOrCreateDevKey(dir);
    const second = await loadOrCreateDevKey(dir);
    expect(second.kid).toBe(first.kid);
    expect(second.publicJwk).toEqual(first.publicJwk);
    expect(first.publicJwk.d).toBeUndefined();
    expect(decodeProtectedHeader(await signDevToken(dir, 'alice')).kid).toBe(first.kid);

    const file = devKeyPath(dir);
    expect(JSON.parse(await readFile(file, 'utf8')).kid).toBe(first.kid);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('creates one key when several callers race', async () => {
    const dir = await tempDir();
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateDevKey(dir)));
    expect(new Set(keys.map((key) => key.kid)).size).toBe(1);
    expect(await readdir(path.dirname(devKeyPath(dir)))).toEqual(['key.json']);
  });

  it('refuses tokens from another data dir and from other issuers', async () => {
    const dir = await tempDir();
    const verifier = await createAuthVerifier(devConfig, { dataDir: dir });
    await expectRefused(verifier, await signDevToken(await tempDir(), 'eve'), /signature/);
    await expectRefused(verifier, await idp.sign('eve', { iss: DEV_ISSUER }), /signature/);
  });

  describe('npm run token', () => {
    const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
    const run = (args: string[], env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const base = Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !name.startsWith('AUTH_')),
        );
        execFile(
          tsx,
          ['scripts/token.ts', ...args],
          { cwd: repoRoot, env: { ...base, NODE_ENV: 'development', ...env } },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });

    it('prints only a token that the service accepts', { timeout: 30_000 }, async () => {
      const dir = await tempDir();
      const { code, stdout } = await run(['carol', '--ttl', '600'], { DATA_DIR: dir });
      expect(code).toBe(0);
      expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
      const verifier = await createAuthVerifier(devConfig, { dataDir: dir });
      const principal = await verifier.verify(stdout.trim());
      expect(principal).toMatchObject({ issuer: DEV_ISSUER, subject: 'carol' });
      expect(principal.expiresAt - now()).toBeLessThanOrEqual(600);
    });

    it(
      'refuses when AUTH_* is set (exit 1) and without a subject (exit 2)',
      { timeout: 30_000 },
      async () => {
        const dir = await tempDir();
        const [configured, missing] = await Promise.all([
          run(['carol'], { DATA_DIR: dir, AUTH_ISSUER: 'https://idp.example' }),
          run([], { DATA_DIR: dir }),
        ]);
        expect(configured).toMatchObject({ code: 1, stdout: '' });
        expect(configured.stderr).toMatch(
          /development identity provider is off because AUTH_ISSUER/,
        );
        expect(missing).toMatchObject({ code: 2, stdout: '' });
        expect(missing.stderr).toMatch(/Usage: npm run token -- <subject>/);
      },
    );

    it(
      'prints a service token with --service and --scope (repeated or space-separated)',
      { timeout: 30_000 },
      async () => {
        const dir = await tempDir();
        const { code, stdout } = await run(
          ['--service', 'checkin-service', '--scope', 'events:write', '--scope=admin openid'],
          { DATA_DIR: dir },
        );
        expect(code).toBe(0);
        expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
        const verifier = await createAuthVerifier(devConfig, { dataDir: dir });
        expect(await verifier.verify(stdout.trim())).toMatchObject({
          kind: 'service',
          clientId: 'checkin-service',
          scopes: ['events:write', 'admin', 'openid'],
        });
        expect(decodeJwt(stdout.trim())).toMatchObject({
          sub: 'checkin-service',
          client_id: 'checkin-service',
          scope: 'events:write admin openid',
        });
      },
    );

    it(
      'refuses a service token without a service scope, and a subject beside --service (exit 2)',
      { timeout: 60_000 },
      async () => {
        const dir = await tempDir();
        const outcomes = await Promise.all([
          run(['--service', 'checkin-service'], { DATA_DIR: dir }),
          run(['--service', 'checkin-service', '--scope', 'openid'], { DATA_DIR: dir }),
          run(['--scope', 'events:write'], { DATA_DIR: dir }),
          run(['alice', '--service', 'checkin-service', '--scope', 'admin'], { DATA_DIR: dir }),
          run(['--service', 'checkin-service', '--scope', 'a"b'], { DATA_DIR: dir }),
        ]);
        for (const outcome of outcomes) expect(outcome).toMatchObject({ code: 2, stdout: '' });
        const [noScope, noServiceScope, noService, both, badScope] = outcomes.map((o) => o.stderr);
        expect(noScope).toMatch(/needs a service scope \(events:write, admin\)/);
        expect(noServiceScope).toMatch(/needs a service scope/);
        expect(noService).toMatch(/--scope is for service tokens: add --service <client-id>/);
        expect(both).toMatch(/either a subject or --service <client-id>, not both/);
        expect(badScope).toMatch(/"a"b" is not a scope/);
        expect(noScope).toMatch(/npm run token -- --service <client-id> --scope <scope>/);
      },
    );
  });
});
