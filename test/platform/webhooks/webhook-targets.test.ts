import { isIP } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../src/live/webhook-target.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';

/**
 * Where webhooks may go (docs/SECURITY.md, Hardening IV, item 8): loopback,
 * private, link-local, metadata and every other non-public address refused
 * by default, at registration (as written, in every spelling) and again at
 * connect (every address a name resolves to, so a name that rebinds to
 * 127.0.0.1 is refused too), before any connection; WEBHOOK_ALLOWED_NETWORKS
 * lets an operator allow internal receivers. The resolver of the rebinding
 * tests is the test's own (a name that resolves to 127.0.0.1), handed to the
 * worker as the system resolver would be.
 */
const { app, database } = useTestApp();
const PATH = '/api/admin/webhook-endpoints';
const cleanup: Array<() => Promise<unknown>> = [];

beforeEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  await app.db.updateTable('webhookEndpoints').set({ retiredAt: new Date() }).execute();
  await app.db.deleteFrom('webhookQueue').execute();
});
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const admin = () => app.serviceToken('ops-console', 'admin');

const REFUSED: Array<[string, RegExp]> = [
  ['http://127.0.0.1:5432/', /127\.0\.0\.1 is a loopback address/],
  ['http://[::1]:6379/', /::1 is a loopback address/],
  ['http://[::ffff:127.0.0.1]:6379/', /\(127\.0\.0\.1\) is a loopback address/],
  ['http://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
  ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
  ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://127.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://localhost:8080/', /localhost \(127\.0\.0\.1\) is a loopback address/],
  ['http://api.localhost/', /loopback/],
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
  ['http://[fe80::1]/', /link-local/],
  ['http://[fd00::1]/', /fd00::1 is a unique-local address/],
  ['http://10.1.2.3/', /10\.1\.2\.3 is a private address/],
  ['http://172.16.0.1/', /private/],
  ['http://172.31.255.255/', /private/],
  ['http://192.168.1.1/', /private/],
  ['http://100.64.0.1/', /carrier-grade NAT/],
  ['http://0.0.0.0/', /0\.0\.0\.0 is an unspecified address/],
  ['http://[::]/', /unspecified/],
  ['http://224.0.0.1/', /multicast/],
  ['http://[64:ff9b::7f00:1]/', /NAT64/],
  ['http://[2002:7f00:1::]/', /6to4/],
];

async function register(url: string, target: TestApp = app) {
  return target.request('POST', PATH, { token: await admin(), body: { url } });
}

async function receiver() {
  const r = new Receiver();
  await r.listen();
  cleanup.push(() => r.close());
  return r;
}

/** A worker instance on this file's database, resolving names with `names` when given. */
async function worker(options: { names?: Record<string, string[]>; allow?: string } = {}) {
  const resolve: Resolver | undefined = options.names
    ? (hostname, callback) => {
        const addresses = options.names![hostname];
        if (!addresses) {
          return callback(Object.assign(new Error(`${hostname}?`), { code: 'ENOTFOUND' }), []);
        }
        callback(
          null,
          addresses.map((address) => ({ address, family: isIP(address) })),
        );
      }
    : undefined;
  const started = await startTestApp({
    database,
    issuer: app.issuer,
    env: options.allow ? { WEBHOOK_ALLOWED_NETWORKS: options.allow } : {},
    webhookOptions: { pollMs: 50, baseDelayMs: 200, maxDelayMs: 400, endpointsTtlMs: 50, resolve },
  });
  cleanup.push(() => started.close());
  return started;
}

/** Onboards a fan: events for every endpoint registered before. */
async function someEvents() {
  const token = await app.token(uniqueSubject('target'));
  const onboarded = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(onboarded.status, onboarded.text).toBe(201);
}

/** The endpoint's logged attempts, once there are at least `count`. */
async function attemptsOf(endpointId: string, count = 1) {
  for (;;) {
    const rows = await app.db
      .selectFrom('webhookDeliveries')
      .select(['outcome', 'statusCode', 'error'])
      .where('endpointId', '=', endpointId)
      .execute();
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhook targets at registration', () => {
  it.each(REFUSED)('refuses %s with a 400 naming why, on REST and tRPC', async (url, reason) => {
    const response = await register(url);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.issues).toEqual([
      { path: 'url', message: expect.stringMatching(reason) },
    ]);
    expect(response.body.error.issues[0].message).toContain('WEBHOOK_ALLOWED_NETWORKS');
    await expect(
      app.trpc(await admin()).adminCreateWebhookEndpoint.mutate({ url }),
    ).rejects.toMatchObject({
      data: { errorCode: 'VALIDATION_FAILED', issues: [{ path: 'url' }] },
    });
    const stored = await app.db
      .selectFrom('webhookEndpoints')
      .select('id')
      .where('url', '=', new URL(url).href)
      .execute();
    expect(stored).toEqual([]);
  });

  it('refuses a change of URL to such an address, on REST and tRPC', async () => {
    const created = await register('https://hooks.example.com/fan-events');
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.endpoint.id as string;
    const changed = await app.request('PATCH', `${PATH}/${id}`, {
      token: await admin(),
      body: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    expect(changed.status, changed.text).toBe(400);
    expect(changed.body.error.issues).toEqual([
      { path: 'url', message: expect.stringMatching(/link-local/) },
    ]);
    await expect(
      app.trpc(await admin()).adminUpdateWebhookEndpoint.mutate({ id, url: 'http://[::1]/' }),
    ).rejects.toMatchObject({ data: { errorCode: 'VALIDATION_FAILED' } });
    const [endpoint] = await app.db
      .selectFrom('webhookEndpoints')
      .select('url')
      .where('id', '=', id)
      .execute();
    expect(endpoint?.url).toBe('https://hooks.example.com/fan-events');
  });

  it('accepts public addresses and names (a name is judged when connecting)', async () => {
    for (const url of [
      'https://hooks.example.com/a',
      'http://93.184.216.34/b',
      'http://[2606:4700::1111]/c',
      'http://internal.example/d',
    ]) {
      const response = await register(url);
      expect(response.status, `${url}: ${response.text}`).toBe(201);
    }
  });

  it('accepts what WEBHOOK_ALLOWED_NETWORKS allows, and only that', async () => {
    const other = await startTestApp({
      database,
      issuer: app.issuer,
      env: { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8,127.0.0.1' },
    });
    cleanup.push(() => other.close());
    for (const url of ['http://10.1.2.3/', 'http://[fd12::1]/', 'http://127.0.0.1:9000/']) {
      expect((await register(url, other)).status, url).toBe(201);
    }
    for (const url of ['http://192.168.1.1/', 'http://127.0.0.2/', 'http://169.254.169.254/']) {
      expect((await register(url, other)).status, url).toBe(400);
    }
  });
});

describe('webhook targets at connect', () => {
  it('refuses a name that resolves to a loopback address before connecting (DNS rebinding)', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    const created = await register(`http://rebind.test:${port}/hooks`);
    expect(created.status, created.text).toBe(201);
    const endpointId = created.body.data.endpoint.id as string;
    await worker({ names: { 'rebind.test': ['127.0.0.1'] } });
    await someEvents();

    const [attempt] = await attemptsOf(endpointId);
    expect(attempt).toEqual({
      outcome: 'failed',
      statusCode: null,
      error:
        'Refused before connecting: rebind.test (127.0.0.1) is a loopback address, which ' +
        'WEBHOOK_ALLOWED_NETWORKS does not allow',
    });
    expect(r.arrivals).toEqual([]);
  });

  it('refuses a name when any of its addresses is refused, a public one beside it', async () => {
    const r = await receiver();
    const created = await register(`http://mixed.test:${new URL(r.url).port}/hooks`);
    const endpointId = created.body.data.endpoint.id as string;
    await worker({ names: { 'mixed.test': ['93.184.216.34', '10.0.0.7', '127.0.0.1'] } });
    await someEvents();
    const [attempt] = await attemptsOf(endpointId);
    expect(attempt?.error).toMatch(/mixed\.test \(10\.0\.0\.7\) is a private address/);
    expect(r.arrivals).toEqual([]);
  });

  it('connects to the checked address the name resolved to when the network is allowed', async () => {
    const r = await receiver();
    const created = await register(`http://rebind.test:${new URL(r.url).port}/hooks`);
    const endpointId = created.body.data.endpoint.id as string;
    // rebind.test exists only in this resolver: a delivery proves the socket used its answer.
    await worker({ names: { 'rebind.test': ['127.0.0.1'] }, allow: '127.0.0.1' });
    await someEvents();
    const [attempt] = await attemptsOf(endpointId);
    expect(attempt).toMatchObject({ outcome: 'delivered', statusCode: 200, error: null });
    expect(r.requests[0]?.headers.host).toBe(`rebind.test:${new URL(r.url).port}`);
  });

  it('refuses an IP literal registered while allowed, once the allow-list no longer holds it', async () => {
    const r = await receiver();
    const allowing = await startTestApp({ database, issuer: app.issuer, env: LOOPBACK_RECEIVERS });
    cleanup.push(() => allowing.close());
    const created = await register(r.url, allowing);
    expect(created.status, created.text).toBe(201);
    await worker();
    await someEvents();
    const [attempt] = await attemptsOf(created.body.data.endpoint.id);
    expect(attempt).toMatchObject({ statusCode: null, error: expect.stringMatching(/loopback/) });
    expect(r.arrivals).toEqual([]);
  });

  it('logs the same for a closed port as for an open one: no port-scan oracle', async () => {
    const open = await receiver();
    const closed = await receiver();
    const closedPort = new URL(closed.url).port;
    await closed.close();
    const allowing = await startTestApp({ database, issuer: app.issuer, env: LOOPBACK_RECEIVERS });
    cleanup.push(() => allowing.close());
    const a = await register(open.url, allowing);
    const b = await register(`http://127.0.0.1:${closedPort}/hooks`, allowing);
    await worker();
    await someEvents();
    const [toOpen] = await attemptsOf(a.body.data.endpoint.id);
    const [toClosed] = await attemptsOf(b.body.data.endpoint.id);
    expect(toOpen).toEqual(toClosed);
    expect(toOpen).toMatchObject({ outcome: 'failed', statusCode: null });
    expect(open.arrivals).toEqual([]);
  });
});
