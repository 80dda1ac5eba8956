import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuthVerifier } from '../../../src/auth/key-sources.js';
import { metricsServer, registry } from '../../../src/metrics.js';
import { sql } from 'kysely';
import { createTestDatabase, openPool, testDbKind } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * The failure paths of the metrics, in process (the Prometheus test scrapes a
 * healthy service): what a real identity provider's outage counts, and what
 * the metrics endpoint answers besides GET /metrics.
 */
const issuers: TokenIssuer[] = [];

afterAll(async () => {
  await Promise.all(issuers.map((issuer) => issuer.stop()));
});

/** The value of a counter's series with exactly these labels (0 when it has none yet). */
async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const match = values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return match?.value ?? 0;
}

describe('identity-provider key fetches', () => {
  it('counts a JWKS fetch that fails and one that succeeds', async () => {
    const issuer = await startTokenIssuer();
    issuers.push(issuer);
    const verifier = await createAuthVerifier(
      { kind: 'jwks', issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, audience: [] },
      { dataDir: '/nonexistent' },
    );
    const token = await issuer.sign('metrics-fan');
    const failedBefore = await counter('ups_identity_key_fetches_total', {
      source: 'jwks',
      outcome: 'failed',
    });
    const okBefore = await counter('ups_identity_key_fetches_total', {
      source: 'jwks',
      outcome: 'ok',
    });

    issuer.setAvailable(false, 'server-error');
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(
      await counter('ups_identity_key_fetches_total', { source: 'jwks', outcome: 'failed' }),
    ).toBe(failedBefore + 1);

    issuer.setAvailable(true);
    // The failure backoff (5 s) refuses to fetch meanwhile; a fresh verifier has none.
    const fresh = await createAuthVerifier(
      { kind: 'jwks', issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, audience: [] },
      { dataDir: '/nonexistent' },
    );
    await expect(fresh.verify(token)).resolves.toMatchObject({ kind: 'fan' });
    expect(await counter('ups_identity_key_fetches_total', { source: 'jwks', outcome: 'ok' })).toBe(
      okBefore + 1,
    );
  });

  it('counts a failed OIDC discovery', async () => {
    const issuer = await startTokenIssuer();
    issuers.push(issuer);
    const verifier = await createAuthVerifier(
      { kind: 'oidc', issuer: issuer.issuer, audience: [] },
      { dataDir: '/nonexistent' },
    );
    const before = await counter('ups_identity_key_fetches_total', {
      source: 'discovery',
      outcome: 'failed',
    });
    issuer.setAvailable(false, 'garbage');
    await expect(verifier.verify(await issuer.sign('oidc-fan'))).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(
      await counter('ups_identity_key_fetches_total', { source: 'discovery', outcome: 'failed' }),
    ).toBe(before + 1);
  });
});

describe.skipIf(testDbKind !== 'postgres')('the PostgreSQL pool', () => {
  it('reports a query waiting for the one connection, and how long it waited', async () => {
    const database = await createTestDatabase();
    const waits: number[] = [];
    const pool = await openPool(database, {
      poolMax: 1,
      onPoolAcquire: (seconds, name) => {
        expect(name).toBe('primary');
        waits.push(seconds);
      },
    });
    try {
      expect(pool.poolStats()).toEqual({ primary: { total: 0, idle: 0, waiting: 0 } });
      const first = sql`select pg_sleep(0.3)`.execute(pool.db);
      const second = sql`select 1`.execute(pool.db);
      await expect.poll(() => pool.poolStats().primary?.waiting).toBe(1);
      expect(pool.poolStats().primary).toMatchObject({ total: 1, idle: 0 });
      await Promise.all([first, second]);
      expect(pool.poolStats()).toEqual({ primary: { total: 1, idle: 1, waiting: 0 } });
      expect(waits).toHaveLength(2);
      // The second query waited for the first to give the connection back.
      expect(Math.max(...waits)).toBeGreaterThan(0.2);
    } finally {
      await pool.close();
      await database.destroy();
    }
  });
});

describe('the metrics endpoint', () => {
  it('answers GET and HEAD /metrics in the text format, anything else 404', async () => {
    const server = metricsServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const text = await metrics.text();
      expect(text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
      expect((await fetch(`${base}/metrics`, { method: 'HEAD' })).status).toBe(200);
      expect((await fetch(`${base}/metrics?x=1`)).status).toBe(200);
      const other = await fetch(`${base}/api/user`);
      expect(other.status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
