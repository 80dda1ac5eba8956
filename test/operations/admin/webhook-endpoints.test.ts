import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { LiveEventSchema } from '../../../routers/live-schemas.js';
import { WEBHOOK_EVENT_TYPES } from '../../../src/domain/webhook-endpoints.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { openPool } from '../../helpers/test-db.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';

/**
 * Webhook endpoints managed through the admin API, delivering to real
 * receivers on 127.0.0.1; every signature is checked with the Standard
 * Webhooks library, as a receiver would.
 */
const { app, database } = useTestApp({ env: LOOPBACK_RECEIVERS });
const cleanup: Array<() => Promise<unknown>> = [];
const workers: TestApp[] = [];
const PATH = '/api/admin/webhook-endpoints';

beforeEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  // Each test starts with no endpoint and nothing queued.
  await app.db.updateTable('webhookEndpoints').set({ retiredAt: new Date() }).execute();
  await app.db.deleteFrom('webhookQueue').execute();
  await app.db.updateTable('liveEvents').set({ webhookNextAt: null }).execute();
});
afterAll(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  for (const step of cleanup.reverse()) await step();
});

/** Fast backoff and endpoint reads, so a test sees changes within a second. */
const fast = { pollMs: 100, baseDelayMs: 200, maxDelayMs: 1_000, endpointsTtlMs: 100 };

async function workerApp(options: { handle?: DatabaseHandle; timeoutMs?: number } = {}) {
  const started = await startTestApp({
    database: (options.handle ?? database) as never,
    issuer: app.issuer,
    env: LOOPBACK_RECEIVERS,
    webhookOptions: {
      ...fast,
      ...(options.timeoutMs && {
        timeoutMs: options.timeoutMs,
        leaseSeconds: options.timeoutMs / 1000 + 10,
      }),
    },
  });
  workers.push(started);
  return started;
}

async function receiver() {
  const r = new Receiver();
  await r.listen();
  cleanup.push(() => r.close());
  return r;
}

const adminToken = () => app.serviceToken('ops-console', 'admin');

async function create(body: Record<string, unknown>) {
  const response = await app.request('POST', PATH, { token: await adminToken(), body });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { endpoint: { id: string }; secret: string };
}

/** Onboards a fan through the app (six events: two quests, their points, two ranks). */
async function onboard(prefix: string) {
  const token = await app.token(uniqueSubject(prefix));
  const response = await app.request('POST', '/api/user/profile', {
    token,
    body: { favoriteTeam: 'Hooks FC' },
  });
  expect(response.status).toBe(201);
  return response.body.data.user.id as string;
}

async function eventsOf(userIds: string[]) {
  return app.db
    .selectFrom('liveEvents')
    .select(['id', 'userId', 'type'])
    .where('userId', 'in', userIds)
    .orderBy('id')
    .execute();
}

/** What `r` acknowledged of `userIds`' events, each verified with `secret`. */
function verifiedFor(r: Receiver, userIds: string[], secret: string) {
  return r.requests
    .filter((request) => request.status < 300)
    .filter((request) => userIds.includes(JSON.parse(request.body).userId))
    .map((request) => {
      const payload = new Webhook(secret).verify(
        request.body,
        request.headers as Record<string, string>,
      );
      return LiveEventSchema.parse(payload);
    });
}

const byId = (x: string, y: string) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);

describe('webhook endpoints', () => {
  it('the filter lists every type a webhook can carry', () => {
    const types = LiveEventSchema.options.map((option) => option.shape.type.value);
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual(types.filter((t) => t !== 'resync').sort());
  });

  it(
    'two endpoints with different filters each get exactly their events, signed with their own secret',
    { timeout: 60_000 },
    async () => {
      const quests = await receiver();
      const ranks = await receiver();
      const a = await create({ url: quests.url, eventTypes: ['quest_completed'] });
      const b = await create({
        url: ranks.url,
        eventTypes: ['rank_changed', 'points_awarded'],
        description: 'ranks and points',
      });
      await workerApp();
      const users = [await onboard('filters'), await onboard('filters')];
      const events = await eventsOf(users);
      const expected = (types: string[]) =>
        events.filter((e) => types.includes(e.type)).map((e) => e.id);
      const wantA = expected(['quest_completed']);
      const wantB = expected(['rank_changed', 'points_awarded']);
      expect(wantA.length).toBeGreaterThan(0);
      expect(wantB.length).toBeGreaterThan(0);
      await expect
        .poll(
          () =>
            verifiedFor(quests, users, a.secret).length +
            verifiedFor(ranks, users, b.secret).length,
          { timeout: 20_000, interval: 200 },
        )
        .toBe(wantA.length + wantB.length);
      // Exactly their events (in order per user; users' events interleave).
      const got = (r: Receiver, secret: string) =>
        verifiedFor(r, users, secret)
          .map((e) => e.id)
          .sort(byId);
      expect(got(quests, a.secret)).toEqual(wantA);
      expect(got(ranks, b.secret)).toEqual(wantB);
      for (const user of users) {
        const mine = verifiedFor(ranks, [user], b.secret).map((e) => e.id);
        expect(mine).toEqual([...mine].sort(byId));
      }
      // Each secret is its endpoint's alone.
      const first = quests.requests[0]!;
      expect(() =>
        new Webhook(b.secret).verify(first.body, first.headers as Record<string, string>),
      ).toThrow();
      // Each delivery is logged against its endpoint (right after the receiver answered).
      const delivered = async (endpointId: string) => {
        const rows = await app.db
          .selectFrom('webhookDeliveries')
          .select('eventId')
          .where('endpointId', '=', endpointId)
          .where('outcome', '=', 'delivered')
          .where(
            'eventId',
            'in',
            events.map((e) => e.id),
          )
          .execute();
        return rows.map((row) => row.eventId).sort(byId);
      };
      await expect.poll(() => delivered(a.endpoint.id)).toEqual(wantA);
      await expect.poll(() => delivered(b.endpoint.id)).toEqual(wantB);
    },
  );

  it(
    'a secret rotation: during the overlap deliveries verify with the old and with the new secret, after it with the new one only',
    { timeout: 60_000 },
    async () => {
      const r = await receiver();
      const { endpoint, secret: old } = await create({ url: r.url, eventTypes: [] });
      await workerApp();
      const before = await onboard('rotation-before');
      const beforeCount = (await eventsOf([before])).length;
      await expect
        .poll(() => verifiedFor(r, [before], old).length, { timeout: 20_000 })
        .toBe(beforeCount);
      const single = r.requests.filter((q) => JSON.parse(q.body).userId === before);
      expect(single.every((q) => !String(q.headers['webhook-signature']).includes(' '))).toBe(true);

      const overlapSeconds = 6;
      const rotated = await app.request('POST', `${PATH}/${endpoint.id}/rotate-secret`, {
        token: await adminToken(),
        body: { overlapSeconds },
      });
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.data.secret as string;
      expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(fresh).not.toBe(old);
      const expiresAt = new Date(rotated.body.data.endpoint.previousSecretExpiresAt as string);
      expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(3_000);

      const during = await onboard('rotation-during');
      const duringCount = (await eventsOf([during])).length;
      await expect
        .poll(() => verifiedFor(r, [during], fresh).length, { timeout: 20_000 })
        .toBe(duringCount);
      expect(Date.now()).toBeLessThan(expiresAt.getTime());
      // Both signatures on each: a receiver still on the old secret verifies too.
      expect(verifiedFor(r, [during], old)).toHaveLength(duringCount);
      for (const q of r.requests.filter((q) => JSON.parse(q.body).userId === during)) {
        expect(String(q.headers['webhook-signature']).split(' ')).toHaveLength(2);
      }

      await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 200));
      const after = await onboard('rotation-after');
      const afterCount = (await eventsOf([after])).length;
      await expect
        .poll(() => verifiedFor(r, [after], fresh).length, { timeout: 20_000 })
        .toBe(afterCount);
      expect(() => verifiedFor(r, [after], old)).toThrow();
      const list = await app.request('GET', PATH, { token: await adminToken() });
      expect(
        list.body.data.endpoints.find((e: { id: string }) => e.id === endpoint.id),
      ).toMatchObject({ previousSecretExpiresAt: expiresAt.toISOString() });
    },
  );

  it(
    'a hanging endpoint and a failing one do not hold back another',
    { timeout: 60_000 },
    async () => {
      const hanging = await receiver();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      hanging.gate = () => released;
      cleanup.push(async () => release());
      const failing = await receiver();
      failing.status = () => 500;
      const healthy = await receiver();
      await create({ url: hanging.url });
      const failed = await create({ url: failing.url });
      const good = await create({ url: healthy.url });
      // The hanging POSTs are held for 15 s, longer than this test waits for the healthy one.
      await workerApp({ timeoutMs: 15_000 });
      const users = await Promise.all([1, 2, 3].map(() => onboard('isolated')));
      const events = await eventsOf(users);
      const started = Date.now();
      await expect
        .poll(() => verifiedFor(healthy, users, good.secret).length, {
          timeout: 10_000,
          interval: 100,
        })
        .toBe(events.length);
      expect(Date.now() - started).toBeLessThan(10_000);
      // Meanwhile the hanging endpoint holds its first event of each user, unanswered…
      expect(hanging.arrivals.length).toBeGreaterThan(0);
      expect(hanging.requests).toHaveLength(0);
      // …and the failing one was tried, and is being retried.
      const retries = await app.db
        .selectFrom('webhookDeliveries')
        .select(['outcome', 'statusCode'])
        .where('endpointId', '=', failed.endpoint.id)
        .execute();
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.every((r) => r.outcome === 'failed' && r.statusCode === 500)).toBe(true);
      release();
    },
  );

  it('two instances deliver each event once to each endpoint', { timeout: 60_000 }, async () => {
    const all = await receiver();
    const quests = await receiver();
    await create({ url: all.url });
    await create({ url: quests.url, eventTypes: ['quest_completed'] });
    let second: DatabaseHandle | undefined;
    if (database.databaseUrl) {
      second = await openPool(database);
      cleanup.push(() => second!.close());
    }
    await workerApp();
    await workerApp({
      handle: second ? ({ ...second, dataDir: database.dataDir } as never) : undefined,
    });
    const users = await Promise.all(Array.from({ length: 8 }, () => onboard('twice')));
    const events = await eventsOf(users);
    const questIds = events.filter((e) => e.type === 'quest_completed').map((e) => e.id);
    const pending = async () => {
      const rows = await app.db
        .selectFrom('webhookQueue')
        .select('eventId')
        .where('userId', 'in', users)
        .execute();
      const unfanned = await app.db
        .selectFrom('liveEvents')
        .select('id')
        .where('userId', 'in', users)
        .where('webhookNextAt', 'is not', null)
        .execute();
      return rows.length + unfanned.length;
    };
    await expect.poll(pending, { timeout: 30_000, interval: 200 }).toBe(0);
    const ids = (r: Receiver) =>
      r.requests
        .filter((q) => users.includes(JSON.parse(q.body).userId))
        .map((q) => q.headers['webhook-id'] as string)
        .sort();
    expect(ids(all)).toEqual(events.map((e) => e.id).sort());
    expect(ids(quests)).toEqual([...questIds].sort());
  });
});

describe('the admin API of webhook endpoints', () => {
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';
  /** Every operation, with a valid request for an endpoint `id`. */
  const operations = (id: string) => [
    { method: 'GET', path: PATH, body: undefined },
    { method: 'POST', path: PATH, body: { url: 'https://hooks.example.com/a' } },
    { method: 'PATCH', path: `${PATH}/${id}`, body: { enabled: false } },
    { method: 'POST', path: `${PATH}/${id}/rotate-secret`, body: {} },
    { method: 'DELETE', path: `${PATH}/${id}`, body: undefined },
  ];

  it('refuses every operation without a token, with a fan token, and with a service token without admin, changing nothing', async () => {
    const { endpoint } = await create({ url: 'https://hooks.example.com/kept' });
    const fan = await app.token();
    const writer = await app.serviceToken('checkin-service', 'events:write');
    for (const { method, path, body } of operations(endpoint.id)) {
      const none = await app.request(method, path, { body });
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('UNAUTHENTICATED');
      for (const token of [fan, writer]) {
        const refused = await app.request(method, path, { token, body });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(refused.body).toMatchObject({
          success: false,
          error: { code: 'INSUFFICIENT_SCOPE' },
        });
        expect(refused.body.error.message).toContain('"admin"');
      }
    }
    // Also through tRPC.
    await expect(app.trpc(fan).adminListWebhookEndpoints.query()).rejects.toMatchObject({
      data: { errorCode: 'INSUFFICIENT_SCOPE', httpStatus: 403 },
    });
    const list = await app.request('GET', PATH, { token: await adminToken() });
    const active = list.body.data.endpoints.filter((e: { retiredAt: null }) => !e.retiredAt);
    expect(active).toEqual([
      expect.objectContaining({ id: endpoint.id, enabled: true, retiredAt: null }),
    ]);
    const audit = await app.db
      .selectFrom('adminAudit')
      .select('action')
      .where('targetKey', '=', endpoint.id)
      .execute();
    expect(audit).toEqual([{ action: 'webhook_endpoint.create' }]);
  });

  it('create, list, update, rotate and retire, each audited with its client, before and after, never a secret', async () => {
    const token = await app.serviceToken('ops-console', 'events:write admin');
    const created = await app.request('POST', PATH, {
      token,
      body: {
        url: 'https://crm.example.com/hooks',
        eventTypes: ['quest_completed'],
        description: 'CRM',
      },
    });
    expect(created.status).toBe(201);
    const { endpoint, secret } = created.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(endpoint).toMatchObject({
      url: 'https://crm.example.com/hooks',
      eventTypes: ['quest_completed'],
      description: 'CRM',
      enabled: true,
      source: 'admin',
      previousSecretExpiresAt: null,
      retiredAt: null,
    });
    const listed = await app.request('GET', PATH, { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.endpoints).toContainEqual(endpoint);
    expect(listed.text).not.toContain(secret);

    const updated = await app.request('PATCH', `${PATH}/${endpoint.id}`, {
      token,
      body: { url: 'https://crm.example.com/v2/hooks', eventTypes: [], enabled: false },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      url: 'https://crm.example.com/v2/hooks',
      eventTypes: [],
      enabled: false,
      description: 'CRM',
    });
    const rotated = await app.request('POST', `${PATH}/${endpoint.id}/rotate-secret`, {
      token,
      body: { overlapSeconds: 0 },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.endpoint.previousSecretExpiresAt).toBeNull();
    const newSecret = rotated.body.data.secret as string;
    const retired = await app.request('DELETE', `${PATH}/${endpoint.id}`, { token });
    expect(retired.status).toBe(200);
    expect(retired.body.data.retiredAt).not.toBeNull();
    // Again: the same answer, nothing more audited.
    const again = await app.request('DELETE', `${PATH}/${endpoint.id}`, { token });
    expect(again.status).toBe(200);
    expect(again.body.data.retiredAt).toBe(retired.body.data.retiredAt);

    const audit = await app.db
      .selectFrom('adminAudit')
      .selectAll()
      .where('targetKind', '=', 'webhook_endpoint')
      .where('targetKey', '=', endpoint.id)
      .orderBy('id')
      .execute();
    expect(audit.map((row) => [row.actor, row.action])).toEqual([
      ['ops-console', 'webhook_endpoint.create'],
      ['ops-console', 'webhook_endpoint.update'],
      ['ops-console', 'webhook_endpoint.rotate_secret'],
      ['ops-console', 'webhook_endpoint.retire'],
    ]);
    expect(audit[0]!.before).toBeNull();
    expect(audit[0]!.after).toMatchObject({ url: 'https://crm.example.com/hooks' });
    expect(audit[1]!.before).toMatchObject({ enabled: true, eventTypes: ['quest_completed'] });
    expect(audit[1]!.after).toMatchObject({ enabled: false, eventTypes: [] });
    expect(audit[3]!.after).toMatchObject({ retiredAt: retired.body.data.retiredAt });
    const text = JSON.stringify(audit);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(newSecret);
    expect(text).not.toContain('whsec_');
  });

  it.each([
    ['a URL that is not one', { url: 'hooks.example.com' }, 'url'],
    ['an ftp URL', { url: 'ftp://hooks.example.com/' }, 'url'],
    ['credentials in the URL', { url: 'https://user:pw@hooks.example.com/' }, 'url'],
    ['a fragment', { url: 'https://hooks.example.com/#x' }, 'url'],
    ['a URL too long', { url: `https://hooks.example.com/${'a'.repeat(2048)}` }, 'url'],
    ['no URL', { eventTypes: [] }, 'url'],
    [
      'an unknown event type',
      { url: 'https://h.example.com/', eventTypes: ['resync'] },
      'eventTypes.0',
    ],
    [
      'an event type twice',
      { url: 'https://h.example.com/', eventTypes: ['rank_changed', 'rank_changed'] },
      'eventTypes',
    ],
    ['an unknown field', { url: 'https://h.example.com/', secret: 'whsec_x' }, 'secret'],
    [
      'a description too long',
      { url: 'https://h.example.com/', description: 'x'.repeat(201) },
      'description',
    ],
  ])(
    'creating with %s is a 400 naming the field, and creates nothing',
    async (_label, body, path) => {
      const before = await app.db.selectFrom('webhookEndpoints').select('id').execute();
      const response = await app.request('POST', PATH, { token: await adminToken(), body });
      expect(response.status).toBe(400);
      expect(response.body.success).toBe(false);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
      expect(response.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(await app.db.selectFrom('webhookEndpoints').select('id').execute()).toHaveLength(
        before.length,
      );
    },
  );

  it('refuses bad changes: 400 for bad input, 404 for no such endpoint, 409 for a retired one', async () => {
    const token = await adminToken();
    const { endpoint } = await create({ url: 'https://hooks.example.com/changes' });
    const bad = [
      ['PATCH', `${PATH}/${endpoint.id}`, {}],
      ['PATCH', `${PATH}/${endpoint.id}`, { enabled: 'no' }],
      ['PATCH', `${PATH}/${endpoint.id}`, { url: 'javascript:alert(1)' }],
      ['PATCH', `${PATH}/not-a-uuid`, { enabled: true }],
      ['POST', `${PATH}/${endpoint.id}/rotate-secret`, { overlapSeconds: 604_801 }],
      ['POST', `${PATH}/${endpoint.id}/rotate-secret`, { overlapSeconds: -1 }],
      ['DELETE', `${PATH}/not-a-uuid`, undefined],
    ] as const;
    for (const [method, path, body] of bad) {
      const response = await app.request(method, path, { token, body });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    }
    for (const { method, path, body } of operations(UNKNOWN).slice(2)) {
      const response = await app.request(method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    await app.request('DELETE', `${PATH}/${endpoint.id}`, { token });
    for (const { method, path, body } of operations(endpoint.id).slice(2, 4)) {
      const response = await app.request(method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(409);
      expect(response.body.error.code).toBe('WEBHOOK_ENDPOINT_CONFLICT');
    }
    const audit = await app.db
      .selectFrom('adminAudit')
      .select('action')
      .where('targetKey', '=', endpoint.id)
      .orderBy('id')
      .execute();
    expect(audit.map((row) => row.action)).toEqual([
      'webhook_endpoint.create',
      'webhook_endpoint.retire',
    ]);
  });

  it(`allows at most 20 active endpoints`, async () => {
    const token = await adminToken();
    const made = [];
    for (let i = 0; i < 20; i += 1) made.push(await create({ url: `https://h.example.com/${i}` }));
    const refused = await app.request('POST', PATH, {
      token,
      body: { url: 'https://h.example.com/21' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('WEBHOOK_ENDPOINT_CONFLICT');
    await app.request('DELETE', `${PATH}/${made[0]!.endpoint.id}`, { token });
    const room = await app.request('POST', PATH, {
      token,
      body: { url: 'https://h.example.com/21' },
    });
    expect(room.status).toBe(201);
  });

  it('WEBHOOK_URL and WEBHOOK_SECRET keep an endpoint of their own: listed, changed only there, retirable', async () => {
    const r = await receiver();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const configured = await startTestApp({
      database: database as never,
      issuer: app.issuer,
      env: { WEBHOOK_URL: r.url, WEBHOOK_SECRET: secret, ...LOOPBACK_RECEIVERS },
      webhookOptions: fast,
    });
    workers.push(configured);
    const token = await adminToken();
    const list = await app.request('GET', PATH, { token });
    const mine = list.body.data.endpoints.filter((e: { source: string }) => e.source === 'config');
    expect(mine).toEqual([
      expect.objectContaining({ url: r.url, eventTypes: [], enabled: true, retiredAt: null }),
    ]);
    const id = mine[0].id as string;
    // It delivers, signed with WEBHOOK_SECRET.
    const user = await onboard('configured');
    const count = (await eventsOf([user])).length;
    await expect.poll(() => verifiedFor(r, [user], secret).length, { timeout: 20_000 }).toBe(count);
    for (const { method, path, body } of operations(id).slice(2, 4)) {
      const response = await app.request(method, path, { token, body });
      expect(response.status).toBe(409);
      expect(response.body.error.message).toContain('WEBHOOK_URL');
    }
    const retired = await app.request('DELETE', `${PATH}/${id}`, { token });
    expect(retired.status).toBe(200);
    // A new WEBHOOK_SECRET on the next start rotates it, with an overlap, and brings it back.
    await configured.close();
    const next = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    workers.push(
      await startTestApp({
        database: database as never,
        issuer: app.issuer,
        env: { WEBHOOK_URL: r.url, WEBHOOK_SECRET: next, ...LOOPBACK_RECEIVERS },
        webhookOptions: fast,
      }),
    );
    const back = await app.request('GET', PATH, { token });
    expect(back.body.data.endpoints.find((e: { id: string }) => e.id === id)).toMatchObject({
      retiredAt: null,
      enabled: true,
      previousSecretExpiresAt: expect.any(String),
    });
    const later = await onboard('configured-next');
    const laterCount = (await eventsOf([later])).length;
    await expect
      .poll(() => verifiedFor(r, [later], next).length, { timeout: 20_000 })
      .toBe(laterCount);
    expect(verifiedFor(r, [later], secret)).toHaveLength(laterCount);
  });
});
