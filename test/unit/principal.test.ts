import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/app-error.js';
import { createAuthVerifier } from '../../src/auth/key-sources.js';
import {
  principalFromClaims,
  principalKey,
  type Principal,
  type ServicePrincipal,
} from '../../src/auth/principal.js';
import { withTokenCache } from '../../src/auth/token-cache.js';
import type { AuthVerifier } from '../../src/auth/verifier.js';
import type { AuthConfig } from '../../src/config.js';
import {
  hs256With,
  serviceClaims,
  startTokenIssuer,
  type TokenIssuer,
} from '../helpers/token-issuer.js';

const verified = { issuer: 'https://idp.test', subject: 'alice', expiresAt: 2_000_000_000 };
const classify = (claims: Record<string, unknown>) => principalFromClaims(claims, verified);

function refusal(claims: Record<string, unknown>): AppError {
  try {
    classify(claims);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`expected ${JSON.stringify(claims)} to be refused`);
}

describe('classifying a verified token', () => {
  it('makes a token without a service scope a fan token, keyed by its sub', () => {
    expect(classify({})).toEqual({ kind: 'fan', ...verified });
  });

  it.each([
    ['the fan app’s own login scopes', { scope: 'openid profile email' }],
    ['azp and client_id of the fan app', { scope: 'openid', azp: 'fan-app', client_id: 'fan-app' }],
    ['a scope that only resembles a service scope', { scope: 'events:read admins events:writer' }],
    ['a service scope in another letter case (scopes are case-sensitive)', { scope: 'Admin' }],
    ['a tab, which is not a scope separator', { scope: 'openid\tevents:write' }],
    ['scp naming only other scopes', { scp: ['openid', 'profile'] }],
    ['an scp of no usable type', { scp: 42 }],
  ])('keeps a fan token with %s a fan token', (_label, claims) => {
    expect(classify(claims)).toEqual({ kind: 'fan', ...verified });
  });

  it('makes a token whose scope holds events:write or admin a service token named by client_id', () => {
    expect(classify({ scope: 'events:write', client_id: 'checkin-service' })).toEqual({
      kind: 'service',
      issuer: verified.issuer,
      clientId: 'checkin-service',
      scopes: ['events:write'],
      expiresAt: verified.expiresAt,
    });
    expect(classify({ scope: 'admin', client_id: 'ops-console' })).toMatchObject({
      kind: 'service',
      clientId: 'ops-console',
      scopes: ['admin'],
    });
  });

  it('keeps every scope of the string once, in order, however many spaces separate them', () => {
    const principal = classify({
      scope: '  openid   events:write admin events:write  ',
      client_id: 'c',
    }) as ServicePrincipal;
    expect(principal.scopes).toEqual(['openid', 'events:write', 'admin']);
  });

  it('takes the client from azp when there is no client_id, and accepts both when they agree', () => {
    expect(classify({ scope: 'events:write', azp: 'quiz' })).toMatchObject({ clientId: 'quiz' });
    expect(classify({ scope: 'events:write', azp: 'quiz', client_id: 'quiz' })).toMatchObject({
      clientId: 'quiz',
    });
  });

  it('makes a fan’s own token that also holds a service scope a service token of its client', () => {
    // Acting for the client, never for the fan: fan operations refuse it, and
    // service operations take it only from a client the deployment trusts.
    expect(classify({ scope: 'openid events:write', azp: 'fan-app' })).toEqual({
      kind: 'service',
      issuer: verified.issuer,
      clientId: 'fan-app',
      scopes: ['openid', 'events:write'],
      expiresAt: verified.expiresAt,
    });
  });

  it.each([
    [
      'names no client',
      { scope: 'events:write' },
      /must name its client in a "client_id" or "azp"/,
    ],
    [
      'names two clients',
      { scope: 'admin', client_id: 'a', azp: 'b' },
      /"client_id" and "azp" claims name different clients/,
    ],
    ['has an empty client_id', { scope: 'admin', client_id: '' }, /no client id \("client_id"/],
    ['has a client_id that is not text', { scope: 'admin', client_id: 7 }, /no client id/],
    ['has an azp that is not text', { scope: 'admin', azp: ['quiz'] }, /no client id \("azp"/],
    [
      'has a client_id with a control character',
      { scope: 'admin', client_id: 'quiz\u0000' },
      /"client_id" claim contains control characters/,
    ],
    [
      'has a client_id that is not valid Unicode',
      { scope: 'admin', client_id: 'quiz\uD800' },
      /"client_id" claim is not valid Unicode text/,
    ],
    [
      'has a client_id over 255 characters',
      { scope: 'admin', client_id: 'q'.repeat(256) },
      /"client_id" claim is longer than 255 characters/,
    ],
  ])('refuses a service token that %s with 401', (_label, claims, message) => {
    const error = refusal(claims);
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['an array', ['events:write']],
    ['a number', 1],
    ['null', null],
    ['an object', { 'events:write': true }],
  ])('refuses a scope claim that is %s with 401, whatever else the token holds', (_l, scope) => {
    const error = refusal({ scope, client_id: 'checkin-service' });
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toBe(
      'The token\'s "scope" claim must be a space-separated string (RFC 9068)',
    );
  });

  it.each([
    ['an array', ['events:write']],
    ['a string', 'openid admin'],
  ])(
    'refuses a service scope sent in scp as %s with 401, rather than take it for a fan',
    (_l, scp) => {
      for (const claims of [
        { scp },
        { scp, scope: 'events:write', client_id: 'checkin-service' },
      ]) {
        const error = refusal(claims);
        expect(error.code).toBe('UNAUTHENTICATED');
        expect(error.message).toMatch(/service scope in "scp": send scopes in the "scope" claim/);
      }
    },
  );
});

describe('principalKey', () => {
  const fan: Principal = { kind: 'fan', issuer: 'i', subject: 'checkin-service', expiresAt: 1 };
  const service: Principal = {
    kind: 'service',
    issuer: 'i',
    clientId: 'checkin-service',
    scopes: ['events:write'],
    expiresAt: 1,
  };

  it('never gives a service client and a fan spelled alike the same key', () => {
    expect(principalKey(fan)).not.toBe(principalKey(service));
  });

  it('depends on who is calling, not on the token’s expiry or scopes', () => {
    expect(principalKey({ ...service, scopes: ['admin'], expiresAt: 2 })).toBe(
      principalKey(service),
    );
    expect(principalKey({ ...fan, expiresAt: 2 })).toBe(principalKey(fan));
  });

  it('keeps issuer and id apart whatever characters they hold', () => {
    const a: Principal = { ...service, issuer: 'i","x', clientId: 'y' };
    const b: Principal = { ...service, issuer: 'i', clientId: 'x","y' };
    expect(principalKey(a)).not.toBe(principalKey(b));
  });
});

describe('service and fan tokens through the real verifier (JWKS over HTTP)', () => {
  let issuer: TokenIssuer;
  let verifier: AuthVerifier;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: 'fan-api' });
    verifier = await createAuthVerifier(
      { kind: 'jwks', issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, audience: ['fan-api'] },
      { dataDir: '/nonexistent' },
    );
  });
  afterAll(() => issuer?.stop());

  it('verifies a client-credentials token as a service and a login token as a fan', async () => {
    const service = await verifier.verify(
      await issuer.signService('checkin-service', 'events:write'),
    );
    expect(service).toEqual({
      kind: 'service',
      issuer: issuer.issuer,
      clientId: 'checkin-service',
      scopes: ['events:write'],
      expiresAt: expect.any(Number),
    });
    const fan = await verifier.verify(
      await issuer.sign('alice', { azp: 'fan-app', scope: 'openid profile' }),
    );
    expect(fan).toEqual({
      kind: 'fan',
      issuer: issuer.issuer,
      subject: 'alice',
      expiresAt: expect.any(Number),
    });
  });

  it('reads a service token the same way from every key source', async () => {
    const secret = 'a-test-secret-that-is-long-enough-123';
    const sources: [AuthConfig, string, string][] = [
      [
        { kind: 'oidc', issuer: issuer.issuer, audience: ['fan-api'] },
        await issuer.signService('oidc-client', 'admin'),
        'oidc-client',
      ],
      [
        {
          kind: 'publicKey',
          issuer: issuer.issuer,
          publicKey: issuer.publicKeyPem,
          audience: ['fan-api'],
        },
        await issuer.signService('pem-client', 'admin'),
        'pem-client',
      ],
      [
        { kind: 'hs256', issuer: issuer.issuer, secret, audience: ['fan-api'] },
        await hs256With(Buffer.from(secret), {
          ...serviceClaims('hs-client', 'admin'),
          iss: issuer.issuer,
          aud: 'fan-api',
          exp: Math.floor(Date.now() / 1000) + 60,
        }),
        'hs-client',
      ],
    ];
    for (const [auth, token, clientId] of sources) {
      const source = await createAuthVerifier(auth, { dataDir: '/nonexistent' });
      expect(await source.verify(token), auth.kind).toMatchObject({
        kind: 'service',
        clientId,
        scopes: ['admin'],
      });
    }
  });

  it('checks a service token like any other: audience, expiry and signature come first', async () => {
    const wrongAudience = await issuer.signService('checkin-service', 'events:write', {
      aud: 'another-api',
    });
    await expect(verifier.verify(wrongAudience)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/audience/),
    });
    const expired = await issuer.signService('checkin-service', 'events:write', {
      exp: Math.floor(Date.now() / 1000) - 120,
    });
    await expect(verifier.verify(expired)).rejects.toMatchObject({
      message: 'The token has expired',
    });
  });

  it('keeps the kinds apart in the token cache: each token answers with its own principal', async () => {
    const cached = withTokenCache(verifier, { ttlSeconds: 60 });
    const serviceToken = await issuer.signService('same-name', 'admin');
    const fanToken = await issuer.sign('same-name');
    for (let round = 0; round < 2; round += 1) {
      expect(await cached.verify(serviceToken)).toMatchObject({
        kind: 'service',
        clientId: 'same-name',
      });
      expect(await cached.verify(fanToken)).toMatchObject({ kind: 'fan', subject: 'same-name' });
    }
  });

  it('never caches a refused service token', async () => {
    let calls = 0;
    const cached = withTokenCache(
      {
        verify(token) {
          calls += 1;
          return verifier.verify(token);
        },
      },
      { ttlSeconds: 60 },
    );
    const clientless = await issuer.signService('x', 'events:write', { client_id: undefined });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await expect(cached.verify(clientless)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    expect(calls).toBe(2);
  });
});
