import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookTestEventSchema } from '../../../routers/live-schemas.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';
import { holdsFor } from '../../helpers/waits.js';

/**
 * An endpoint's delivery log, redelivery and test events (docs/LIVE.md,
 * "Delivery log"), against real receivers on 127.0.0.1; signatures checked
 * with the Standard Webhooks library.
 */
const { app, database } = useTestApp({ env: LOOPBACK_RECEIVERS });
const cleanup: Array<() => Promise<unknown>> = [];
let worker: TestApp | undefined;
const PATH = '/api/admin/webhook-endpoints';

beforeEach(async () => {
  await worker?.close();
  worker = undefined;
  await app.db.updateTable('webhookEndpoints').set({ retiredAt: new Date() }).execute();
  await app.db.deleteFrom('webhookQueue').execute();
  await app.db.updateTable('liveEvents').set({ webhookNextAt: null }).execute();
});
afterAll(async () => {
  await worker?.close();
  for (const step of cleanup.reverse()) await step();
});

/** An instance delivering webhooks, with fast retries. */
async function startWorker() {
  worker = await startTestApp({
    database: database as never,
    issuer: app.issuer,
    env: LOOPBACK_RECEIVERS,
    webhookOptions: { pollMs: 100, baseDelayMs: 300, maxDelayMs: 1_000, endpointsTtlMs: 100 },
  });
}

async function receiver() {
  const r = new Receiver();
  await r.listen();
  cleanup.push(() => r.close());
  return r;
}

const admin = () => app.serviceToken('ops-console', 'admin');

async function call(method: string, path: string, body?: unknown) {
  return app.request(method, path, { token: await admin(), body });
}

async function create(body: Record<string, unknown>) {
  const response = await call('POST', PATH, body);
  expect(response.status, response.text).toBe(201);
  return response.body.data as { endpoint: { id: string }; secret: string };
}

/** Onboards a fan: its events are the welcome quest's (points_awarded, quest_completed, rank_changed). */
async function onboard() {
  const token = await app.token(uniqueSubject('hooked'));
  const response = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(response.status).toBe(201);
  return response.body.data.user.id as string;
}

async function log(endpointId: string, query = '') {
  const response = await call('GET', `${PATH}/${endpointId}/deliveries${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data as { entries: any[]; nextCursor: string | null };
}

describe('the delivery log', () => {
  it('lists every attempt newest first, with outcome, status, error and type; filters and pages', async () => {
    const r = await receiver();
    let failures = 1;
    r.status = () => (failures-- > 0 ? 503 : 200);
    const { endpoint } = await create({ url: r.url, eventTypes: ['quest_completed'] });
    await startWorker();
    const userId = await onboard();
    const [event] = await app.db
      .selectFrom('liveEvents')
      .select('id')
      .where('userId', '=', userId)
      .where('type', '=', 'quest_completed')
      .execute();
    await expect
      .poll(async () => (await log(endpoint.id)).entries.length, { timeout: 20_000 })
      .toBe(2);
    const { entries, nextCursor } = await log(endpoint.id);
    expect(nextCursor).toBeNull();
    expect(entries).toEqual([
      expect.objectContaining({
        eventId: event!.id,
        eventType: 'quest_completed',
        attempt: 2,
        outcome: 'delivered',
        statusCode: 200,
        error: null,
      }),
      expect.objectContaining({
        eventId: event!.id,
        eventType: 'quest_completed',
        attempt: 1,
        outcome: 'failed',
        statusCode: 503,
        error: 'HTTP 503',
        durationMs: expect.any(Number),
        at: expect.any(String),
      }),
    ]);
    expect((await log(endpoint.id, '?outcome=failed')).entries.map((e) => e.attempt)).toEqual([1]);
    expect((await log(endpoint.id, `?eventId=${event!.id}`)).entries).toHaveLength(2);
    expect((await log(endpoint.id, '?eventId=999999999')).entries).toEqual([]);
    const first = await log(endpoint.id, '?limit=1');
    expect(first.entries.map((e) => e.attempt)).toEqual([2]);
    const second = await log(endpoint.id, `?limit=1&before=${first.nextCursor}`);
    expect(second).toEqual({
      entries: [expect.objectContaining({ attempt: 1 })],
      nextCursor: null,
    });
  });

  it('404 for no such endpoint, 400 for bad parameters', async () => {
    const missing = await call('GET', `${PATH}/00000000-0000-4000-8000-000000000000/deliveries`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const { endpoint } = await create({ url: 'https://hooks.example.com/x' });
    for (const query of ['?outcome=lost', '?limit=0', '?before=x', '?eventId=-1']) {
      const bad = await call('GET', `${PATH}/${endpoint.id}/deliveries${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('redelivery', () => {
  it('sends a delivered event again as the next attempt, signed with the secret in force, and audits it', async () => {
    const r = await receiver();
    const { endpoint, secret } = await create({ url: r.url, eventTypes: ['quest_completed'] });
    await startWorker();
    await onboard();
    await expect.poll(() => r.acknowledged().length, { timeout: 20_000 }).toBe(1);
    const [sent] = r.acknowledged();

    const rotated = await call('POST', `${PATH}/${endpoint.id}/rotate-secret`, {
      overlapSeconds: 0,
    });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;

    const again = await call('POST', `${PATH}/${endpoint.id}/redeliveries`, { eventId: sent!.id });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ eventId: sent!.id, status: 'queued', attempt: 2 });
    await expect.poll(() => r.acknowledged().length, { timeout: 20_000 }).toBe(2);
    const redelivered = r.requests.at(-1)!;
    expect(redelivered.headers['webhook-id']).toBe(sent!.id);
    expect(JSON.parse(redelivered.body)).toEqual(sent!.event);
    new Webhook(fresh).verify(redelivered.body, redelivered.headers as Record<string, string>);
    expect(() =>
      new Webhook(secret).verify(redelivered.body, redelivered.headers as Record<string, string>),
    ).toThrow();
    await expect
      .poll(async () => (await log(endpoint.id)).entries.map((e) => [e.attempt, e.outcome]))
      .toEqual([
        [2, 'delivered'],
        [1, 'delivered'],
      ]);
    const audit = await call(
      'GET',
      `/api/admin/audit?targetKind=webhook_endpoint&targetKey=${endpoint.id}`,
    );
    expect(audit.body.data.entries[0]).toMatchObject({
      actor: 'ops-console',
      action: 'webhook_endpoint.redeliver',
      after: { eventId: sent!.id, attempt: 2 },
    });
  });

  it('leaves an event still queued as it is, and refuses what cannot be sent again', async () => {
    const r = await receiver();
    r.status = () => 500;
    const { endpoint } = await create({ url: r.url, eventTypes: ['quest_completed'] });
    await startWorker();
    await onboard();
    await expect
      .poll(async () => (await log(endpoint.id)).entries.length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    const [failed] = (await log(endpoint.id)).entries;
    // Failing: still queued for its retry.
    const queued = await call('POST', `${PATH}/${endpoint.id}/redeliveries`, {
      eventId: failed.eventId,
    });
    expect(queued.status, queued.text).toBe(200);
    expect(queued.body.data.status).toBe('already_queued');

    // An event this endpoint was never sent.
    const other = await app.db
      .selectFrom('liveEvents')
      .select('id')
      .where('type', '=', 'points_awarded')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const never = await call('POST', `${PATH}/${endpoint.id}/redeliveries`, { eventId: other.id });
    expect(never.status).toBe(404);
    expect(never.body.error.code).toBe('NOT_FOUND');

    // Gone from the outbox (retention): nothing to send.
    await worker?.close();
    worker = undefined;
    await app.db.deleteFrom('liveEvents').where('id', '=', failed.eventId).execute();
    const gone = await call('POST', `${PATH}/${endpoint.id}/redeliveries`, {
      eventId: failed.eventId,
    });
    expect(gone.status, gone.text).toBe(409);
    expect(gone.body.error.code).toBe('WEBHOOK_ENDPOINT_CONFLICT');
    expect(gone.body.error.message).toContain('no longer kept');

    const retired = await call('DELETE', `${PATH}/${endpoint.id}`);
    expect(retired.status).toBe(200);
    const afterRetire = await call('POST', `${PATH}/${endpoint.id}/redeliveries`, {
      eventId: failed.eventId,
    });
    expect(afterRetire.status).toBe(409);
    const missing = await call(
      'POST',
      `${PATH}/00000000-0000-4000-8000-000000000000/redeliveries`,
      { eventId: '1' },
    );
    expect(missing.status).toBe(404);
    const bad = await call('POST', `${PATH}/${endpoint.id}/redeliveries`, { eventId: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('eventId');
  });
});

describe('a test event', () => {
  it('is POSTed at once whatever the filter, verifies with both secrets during an overlap, and is logged and audited', async () => {
    const r = await receiver();
    const { endpoint, secret } = await create({ url: r.url, eventTypes: ['rank_changed'] });
    const rotated = await call('POST', `${PATH}/${endpoint.id}/rotate-secret`, {
      overlapSeconds: 600,
    });
    const fresh = rotated.body.data.secret as string;

    const tested = await call('POST', `${PATH}/${endpoint.id}/test`, {});
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.data).toMatchObject({
      eventType: 'webhook_test',
      attempt: 1,
      outcome: 'delivered',
      statusCode: 200,
      error: null,
    });
    expect(r.requests).toHaveLength(1);
    const request = r.requests[0]!;
    expect(request.headers['webhook-id']).toBe(tested.body.data.eventId);
    const headers = request.headers as Record<string, string>;
    for (const key of [fresh, secret]) {
      const payload = WebhookTestEventSchema.parse(new Webhook(key).verify(request.body, headers));
      expect(payload).toMatchObject({
        id: tested.body.data.eventId,
        type: 'webhook_test',
        data: { endpointId: endpoint.id },
      });
    }
    // A fresh id: no outbox event has it, and no test event reuses it.
    const outbox = await app.db
      .selectFrom('liveEvents')
      .select('id')
      .where('id', '=', tested.body.data.eventId)
      .execute();
    expect(outbox).toEqual([]);
    const second = await call('POST', `${PATH}/${endpoint.id}/test`, {});
    expect(BigInt(second.body.data.eventId)).toBeGreaterThan(BigInt(tested.body.data.eventId));

    const logged = await log(endpoint.id);
    expect(logged.entries.map((e) => e.eventId)).toEqual([
      second.body.data.eventId,
      tested.body.data.eventId,
    ]);
    const audit = await call(
      'GET',
      `/api/admin/audit?targetKind=webhook_endpoint&targetKey=${endpoint.id}`,
    );
    expect(audit.body.data.entries[0]).toMatchObject({
      action: 'webhook_endpoint.test',
      after: { eventId: second.body.data.eventId, outcome: 'delivered', statusCode: 200 },
    });
  });

  it('reports a failing or unreachable receiver as given up, without retrying; refused once retired', async () => {
    const r = await receiver();
    r.status = () => 418;
    const { endpoint } = await create({ url: r.url });
    const failing = await call('POST', `${PATH}/${endpoint.id}/test`, {});
    expect(failing.status, failing.text).toBe(200);
    expect(failing.body.data).toMatchObject({
      outcome: 'gave_up',
      statusCode: 418,
      error: 'HTTP 418',
    });
    // A port nothing listens on any more.
    const down = await receiver();
    const closedUrl = down.url;
    await down.close();
    const gone = await create({ url: closedUrl });
    const refused = await call('POST', `${PATH}/${gone.endpoint.id}/test`, {});
    expect(refused.body.data).toMatchObject({
      outcome: 'gave_up',
      statusCode: null,
      error: 'ECONNREFUSED',
    });
    // A receiver that does not answer in time (timeoutSeconds).
    const slow = await receiver();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    slow.gate = () => held;
    cleanup.push(async () => release());
    const hanging = await create({ url: slow.url });
    const started = Date.now();
    const timedOut = await call('POST', `${PATH}/${hanging.endpoint.id}/test`, {
      timeoutSeconds: 1,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(timedOut.body.data).toMatchObject({
      outcome: 'gave_up',
      statusCode: null,
      error: 'timeout',
    });
    release();
    const tooLong = await call('POST', `${PATH}/${hanging.endpoint.id}/test`, {
      timeoutSeconds: 31,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.issues[0].path).toBe('timeoutSeconds');

    // Never retried: no queue row, one log entry each.
    await holdsFor(
      'no retry queued',
      500,
      async () => (await app.db.selectFrom('webhookQueue').selectAll().execute()).length === 0,
    );
    expect(await app.db.selectFrom('webhookQueue').selectAll().execute()).toEqual([]);
    expect((await log(endpoint.id)).entries).toHaveLength(1);

    await call('DELETE', `${PATH}/${endpoint.id}`);
    const retired = await call('POST', `${PATH}/${endpoint.id}/test`, {});
    expect(retired.status).toBe(409);
    expect(retired.body.error.code).toBe('WEBHOOK_ENDPOINT_CONFLICT');
    const missing = await call('POST', `${PATH}/00000000-0000-4000-8000-000000000000/test`, {});
    expect(missing.status).toBe(404);
  });

  it('answers the same over tRPC', async () => {
    const r = await receiver();
    const { endpoint } = await create({ url: r.url });
    const trpc = app.trpc(await admin());
    const tested = await trpc.adminTestWebhookEndpoint.mutate({ id: endpoint.id });
    expect(tested.data).toMatchObject({ outcome: 'delivered', eventType: 'webhook_test' });
    const page = await trpc.adminWebhookDeliveries.query({ id: endpoint.id });
    expect(page.data.entries[0]!.eventId).toBe(tested.data.eventId);
    await expect(
      trpc.adminRedeliverWebhook.mutate({ id: endpoint.id, eventId: tested.data.eventId }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('send a new one'),
      data: { errorCode: 'WEBHOOK_ENDPOINT_CONFLICT', httpStatus: 409 },
    });
  });
});
