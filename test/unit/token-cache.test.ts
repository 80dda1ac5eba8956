import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTokenCache } from '../../src/auth/token-cache.js';
import { createAuthVerifier } from '../../src/auth/key-sources.js';
import type { AuthVerifier } from '../../src/auth/verifier.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { AppError } from '../../src/app-error.js';
import { startTokenIssuer, type TokenIssuer } from '../helpers/token-issuer.js';

let issuer: TokenIssuer;
let real: AuthVerifier;

beforeAll(async () => {
  issuer = await startTokenIssuer();
  real = await createAuthVerifier(
    { kind: 'jwks', issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, audience: [] },
    { dataDir: '/nonexistent' },
  );
});
afterAll(() => issuer.stop());

/** The real verifier, counting how often a token reaches it (i.e. missed the cache). */
function counted() {
  const counter = { calls: 0 };
  const verifier: AuthVerifier = {
    verify(token) {
      counter.calls += 1;
      return real.verify(token);
    },
  };
  return { counter, verifier };
}

function clock(start = Date.now()) {
  const state = { now: start };
  return { state, now: () => state.now };
}

describe('token cache', () => {
  it('verifies a token once, then answers from the cache until the TTL ends', async () => {
    const { counter, verifier } = counted();
    const time = clock();
    const cached = withTokenCache(verifier, { ttlSeconds: 60, now: time.now });
    const token = await issuer.sign('cached-user');

    const first = await cached.verify(token);
    const second = await cached.verify(token);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ kind: 'fan', subject: 'cached-user' });
    expect(counter.calls).toBe(1);

    time.state.now += 59_000;
    await cached.verify(token);
    expect(counter.calls).toBe(1);
    time.state.now += 2_000;
    await cached.verify(token);
    expect(counter.calls).toBe(2);
  });

  it('never keeps a token past its own exp', async () => {
    const { counter, verifier } = counted();
    const time = clock();
    const cached = withTokenCache(verifier, { ttlSeconds: 3600, now: time.now });
    const exp = Math.floor(time.state.now / 1000) + 20;
    const token = await issuer.sign('short-lived', { exp });

    await cached.verify(token);
    time.state.now = exp * 1000 - 1;
    await cached.verify(token);
    expect(counter.calls).toBe(1);
    // Past exp the token goes back to jose (which still applies its 30 s tolerance).
    time.state.now = exp * 1000;
    await cached.verify(token);
    expect(counter.calls).toBe(2);
  });

  it('does not cache failures: a forged token is rejected every time', async () => {
    const { counter, verifier } = counted();
    const cached = withTokenCache(verifier, { ttlSeconds: 60 });
    const good = await issuer.sign('victim');
    const [header, payload] = good.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;

    for (let i = 0; i < 2; i++) {
      const error = await cached.verify(forged).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('UNAUTHENTICATED');
    }
    expect(counter.calls).toBe(2);
  });

  it('keys on the whole token: a different token for the same subject is verified', async () => {
    const { counter, verifier } = counted();
    const cached = withTokenCache(verifier, { ttlSeconds: 60 });
    const exp = Math.floor(Date.now() / 1000) + 300;
    await cached.verify(await issuer.sign('same', { exp }));
    await cached.verify(await issuer.sign('same', { exp: exp + 1 }));
    expect(counter.calls).toBe(2);
  });

  it('holds at most maxEntries tokens, dropping the least recently used', async () => {
    const { counter, verifier } = counted();
    const cached = withTokenCache(verifier, { ttlSeconds: 60, maxEntries: 2 });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((s) => issuer.sign(s)));
    await cached.verify(a!);
    await cached.verify(b!);
    await cached.verify(c!); // evicts a
    expect(counter.calls).toBe(3);
    await cached.verify(c!);
    await cached.verify(b!);
    expect(counter.calls).toBe(3);
    await cached.verify(a!);
    expect(counter.calls).toBe(4);
  });

  it('is off with a TTL of 0', async () => {
    const { counter, verifier } = counted();
    const cached = withTokenCache(verifier, { ttlSeconds: 0 });
    const token = await issuer.sign('uncached');
    await cached.verify(token);
    await cached.verify(token);
    expect(counter.calls).toBe(2);
  });
});

describe('AUTH_TOKEN_CACHE_SECONDS', () => {
  it('defaults to 60, accepts 0 (off) and refuses values outside 0..3600', () => {
    expect(loadConfig({}).authTokenCacheSeconds).toBe(60);
    expect(loadConfig({ AUTH_TOKEN_CACHE_SECONDS: '0' }).authTokenCacheSeconds).toBe(0);
    for (const bad of ['-1', '3601', 'soon']) {
      expect(() => loadConfig({ AUTH_TOKEN_CACHE_SECONDS: bad })).toThrow(ConfigError);
    }
  });
});
