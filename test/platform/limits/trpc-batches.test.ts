import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_TRPC_BATCH } from '../../../src/http/trpc-batch.js';
import { useTestApp, type TestApp } from '../../helpers/test-app.js';
import { signWithForeignKey } from '../../helpers/token-issuer.js';
import { batchPath, counting, raw, useExtraApps } from '../../helpers/raw-http.js';

/**
 * tRPC batches over real HTTP: too many calls refused before any work, one token verification per
 * HTTP request, and a batch of n calls counted as n against the per-IP and per-user limits.
 */

const { database } = useTestApp();
const appWith = useExtraApps(() => database);

describe('tRPC batches', () => {
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
