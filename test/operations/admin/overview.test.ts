import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';

/**
 * GET /api/admin/overview and adminOverview over tRPC: the game at a glance, the numbers checked
 * against the events, reversals and webhook deliveries this file makes on a fresh database.
 */
const { app, database } = useTestApp({ env: LOOPBACK_RECEIVERS });
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const admin = () => app.serviceToken('ops-overview', 'admin');

async function overview(window?: string) {
  const response = await app.request(
    'GET',
    `/api/admin/overview${window ? `?window=${window}` : ''}`,
    { token: await admin() },
  );
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

async function send(events: Array<{ subject: string; type: string }>) {
  const token = await app.serviceToken('game-server');
  const response = await app.request('POST', '/api/events', {
    token,
    body: { events: events.map((e) => ({ id: uniqueSubject('ev'), ...e })) },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as Array<{ id: string; status: string; points?: number }>;
}

const rejected = (o: any, code: string) =>
  o.rejections.byCode.find((r: { code: string }) => r.code === code)?.count ?? 0;
const total = (numbers: number[]) => numbers.reduce((sum, n) => sum + n, 0);
const countsOf = (o: any) =>
  Object.fromEntries(o.events.map((e: any) => [e.type, total(e.counts)]));

describe('the overview', () => {
  it('is empty on a fresh database, with a bucket a minute over the hour', async () => {
    const o = await overview();
    expect(o.window).toBe('hour');
    expect(o.bucketSeconds).toBe(60);
    expect(Date.parse(o.to) - Date.parse(o.from)).toBe(3_600_000);
    expect(o.buckets.length).toBe(61);
    expect(Date.parse(o.buckets[0]) % 60_000).toBe(0);
    expect(Date.parse(o.buckets[0])).toBeLessThanOrEqual(Date.parse(o.from));
    expect(Date.parse(o.buckets.at(-1))).toBeLessThanOrEqual(Date.parse(o.to));
    expect(o.events).toEqual([]);
    expect(o.points).toEqual(o.buckets.map(() => 0));
    expect(o.activeFans).toBe(0);
    expect(o.outboxLagSeconds).toBe(0);
    expect(o.webhooks).toEqual({
      delivered: 0,
      failed: 0,
      gaveUp: 0,
      queued: 0,
      endpointsEnabled: 0,
      endpointsDisabled: 0,
    });
  });

  it('counts events by type, the points they award, active fans and rejections', async () => {
    const before = await overview();
    const [a, b] = [uniqueSubject('fan'), uniqueSubject('fan')];
    const results = await send([
      { subject: a, type: 'prediction_correct' },
      { subject: a, type: 'prediction_correct' },
      { subject: a, type: 'match_checkin' },
      { subject: b, type: 'match_checkin' },
      { subject: b, type: 'no_such_type' },
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'rejected',
    ]);
    const awarded = total(results.map((r) => r.points ?? 0));
    expect(awarded).toBeGreaterThanOrEqual(70);

    const o = await overview();
    expect(countsOf(o)).toEqual({ prediction_correct: 2, match_checkin: 2 });
    expect(o.events.map((e: any) => e.type)).toEqual(['match_checkin', 'prediction_correct']);
    for (const e of o.events) expect(e.counts).toHaveLength(o.buckets.length);
    expect(total(o.points)).toBe(awarded);
    // In the buckets of the last minute or two, not spread over the hour.
    expect(total(o.points.slice(-2))).toBe(awarded);
    expect(o.activeFans).toBe(2);
    expect(rejected(o, 'UNKNOWN_EVENT_TYPE')).toBe(rejected(before, 'UNKNOWN_EVENT_TYPE') + 1);
    expect(Date.parse(o.rejections.since)).toBeLessThan(Date.now());

    // A reversal takes its points out of the awards; the event still counts as recorded.
    const reversal = await app.request('POST', '/api/admin/reversals', {
      token: await admin(),
      body: { clientId: 'game-server', id: results[0]!.id, reason: 'void match' },
    });
    expect(reversal.status, reversal.text).toBe(200);
    const after = await overview();
    expect(countsOf(after)).toEqual({ prediction_correct: 2, match_checkin: 2 });
    expect(total(after.points)).toBe(awarded - results[0]!.points!);

    const day = await overview('day');
    expect(day.bucketSeconds).toBe(1_800);
    expect(Date.parse(day.to) - Date.parse(day.from)).toBe(86_400_000);
    expect(day.buckets.length).toBe(49);
    expect(countsOf(day)).toEqual({ prediction_correct: 2, match_checkin: 2 });
    expect(total(day.points)).toBe(total(after.points));
    expect(day.activeFans).toBe(2);

    // The tRPC face answers the same.
    const viaTrpc = await app.trpc(await admin()).adminOverview.query({ window: 'day' });
    expect(countsOf(viaTrpc.data)).toEqual(countsOf(day));
    expect(viaTrpc.data.activeFans).toBe(2);
  });

  it(
    'reports webhook delivery health: deliveries, failures, the queue, the outbox lag, endpoints',
    { timeout: 60_000 },
    async () => {
      const receiver = new Receiver();
      await receiver.listen();
      cleanup.push(() => receiver.close());
      const created = await app.request('POST', '/api/admin/webhook-endpoints', {
        token: await admin(),
        body: { url: receiver.url, eventTypes: ['points_awarded'] },
      });
      expect(created.status, created.text).toBe(201);
      const worker: TestApp = await startTestApp({
        database: database as never,
        issuer: app.issuer,
        env: LOOPBACK_RECEIVERS,
        webhookOptions: { pollMs: 100, baseDelayMs: 200, maxDelayMs: 1_000, endpointsTtlMs: 100 },
      });
      cleanup.push(() => worker.close());

      await send([{ subject: uniqueSubject('fan'), type: 'match_checkin' }]);
      await expect
        .poll(async () => (await overview()).webhooks.delivered, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(1);
      let o = await overview();
      expect(o.webhooks).toMatchObject({ endpointsEnabled: 1, endpointsDisabled: 0, gaveUp: 0 });
      expect(o.webhooks.delivered).toBe(receiver.requests.filter((r) => r.status < 300).length);

      // The receiver fails: attempts are failed and retried, the event waits, the lag grows.
      receiver.status = () => 503;
      await send([{ subject: uniqueSubject('fan'), type: 'match_checkin' }]);
      await expect
        .poll(async () => (await overview()).webhooks.failed, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(1);
      await expect
        .poll(async () => (await overview()).outboxLagSeconds, { timeout: 20_000 })
        .toBeGreaterThan(0);
      o = await overview();
      expect(o.webhooks.queued).toBeGreaterThanOrEqual(1);

      const id = created.body.data.endpoint.id as string;
      const disabled = await app.request('PATCH', `/api/admin/webhook-endpoints/${id}`, {
        token: await admin(),
        body: { enabled: false },
      });
      expect(disabled.status, disabled.text).toBe(200);
      o = await overview();
      expect(o.webhooks).toMatchObject({ endpointsEnabled: 0, endpointsDisabled: 1 });
      // A paused endpoint's queue waits on purpose: no lag.
      expect(o.outboxLagSeconds).toBe(0);
    },
  );

  it('refuses an unknown window (400 on both faces) and a token without admin', async () => {
    const response = await app.request('GET', '/api/admin/overview?window=week', {
      token: await admin(),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    await expect(
      app.trpc(await admin()).adminOverview.query({ window: 'week' as never }),
    ).rejects.toMatchObject({ data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 } });
    const fan = await app.token(uniqueSubject('fan'));
    expect((await app.request('GET', '/api/admin/overview', { token: fan })).status).toBe(403);
    const service = await app.serviceToken('game-server');
    expect((await app.request('GET', '/api/admin/overview', { token: service })).status).toBe(403);
  });
});
