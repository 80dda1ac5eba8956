import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { syncConfigEndpoint } from '../../../db/queries/webhook-endpoints.js';
import { claimDeliveries, fanOutEvents } from '../../../db/queries/webhook-queue.js';
import { LiveEventSchema } from '../../../routers/live-schemas.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../../../src/live/webhooks.js';
import { createLogger } from '../../../src/logger.js';
import { startServerProcess } from '../../helpers/server-process.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { openPool, testDbKind } from '../../helpers/test-db.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';
import { parseNetwork } from '../../../src/domain/network.js';

/** The workers this file drives itself deliver to receivers on 127.0.0.1. */
const LOOPBACK = [parseNetwork('127.0.0.1')!];

/**
 * Webhooks to a real HTTP receiver on 127.0.0.1: down (connection refused),
 * then failing (500), then up. Signatures are checked with the Standard
 * Webhooks library, as a receiver would.
 */
const { app, database } = useTestApp({ env: LOOPBACK_RECEIVERS });
const cleanup: Array<() => Promise<unknown>> = [];
/** Apps running webhook workers; each test stops the previous test's first. */
const workers: TestApp[] = [];
beforeEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
});
afterAll(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  for (const step of cleanup.reverse()) await step();
});

const secret = `whsec_${randomBytes(32).toString('base64')}`;
/** Fast backoff so an outage of a second or two is retried within the test. */
const fast = { pollMs: 100, baseDelayMs: 200, maxDelayMs: 1_000 };

async function webhookApp(url: string, env: Record<string, string> = {}, handle?: DatabaseHandle) {
  const started = await startTestApp({
    database: (handle ?? database) as never,
    issuer: app.issuer,
    env: { WEBHOOK_URL: url, WEBHOOK_SECRET: secret, ...LOOPBACK_RECEIVERS, ...env },
    webhookOptions: fast,
  });
  workers.push(started);
  return started;
}

/** Onboards `count` users through `target` (each gets 3 events: welcome's and the rank). */
async function onboardUsers(target: TestApp, count: number, prefix: string) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const token = await target.token(uniqueSubject(`${prefix}-${i}`));
      const response = await target.request('POST', '/api/user/profile', {
        token,
        body: { favoriteTeam: 'Hooks FC' },
      });
      expect(response.status).toBe(201);
      return response.body.data.user.id as string;
    }),
  );
}

async function eventsOf(userIds: string[]) {
  return app.db
    .selectFrom('liveEvents')
    .select(['id', 'userId', 'type', 'webhookNextAt'])
    .where('userId', 'in', userIds)
    .orderBy('id')
    .execute();
}

/** The users' events not yet fanned out to the endpoints, and their deliveries still queued. */
async function pending(userIds: string[]) {
  const queued = await app.db
    .selectFrom('webhookQueue')
    .select('eventId')
    .where('userId', 'in', userIds)
    .execute();
  return (await eventsOf(userIds)).filter((e) => e.webhookNextAt !== null).length + queued.length;
}

/** Only this test's events matter: every earlier one counts as handled. */
async function forgetEarlierEvents() {
  await app.db.updateTable('liveEvents').set({ webhookNextAt: null }).execute();
  await app.db.deleteFrom('webhookQueue').execute();
}

/** The endpoint of WEBHOOK_URL, pointed at `url` (as an instance configured so would on start). */
async function configEndpoint(url: string) {
  const { after } = await syncConfigEndpoint(app.db, { url, secret, overlapSeconds: 0 });
  return after.id;
}

/** The tables holding a row that names `text` anywhere (any column, as text). */
async function rowsNaming(text: string): Promise<string[]> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(app.db);
  const found: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM ${sql.table(name)} t
      WHERE strpos(t::text, ${text}) > 0`.execute(app.db);
    if (Number(rows[0]!.n) > 0) found.push(name);
  }
  return found;
}

describe('webhooks', () => {
  it(
    'a receiver that is down, then failing, then up gets every event, in order per user, with signatures that verify',
    { timeout: 90_000 },
    async () => {
      const receiver = new Receiver();
      const port = await receiver.listen();
      await receiver.close(); // nothing listens there now: connection refused
      cleanup.push(() => receiver.close());
      await forgetEarlierEvents();
      await webhookApp(`http://127.0.0.1:${port}/hooks`);

      const users = await onboardUsers(app, 4, 'hook');
      const events = await eventsOf(users);
      expect(events).toHaveLength(4 * 6); // welcome and pick_team: 2 × 2, a rank on 2 boards
      const refused = () =>
        app.db
          .selectFrom('webhookDeliveries')
          .select('error')
          .where(
            'eventId',
            'in',
            events.map((e) => e.id),
          )
          .where('error', '=', 'ECONNREFUSED')
          .execute();
      await expect
        // Generous: under a full parallel suite the worker's rounds can lag by seconds.
        .poll(async () => (await refused()).length, { timeout: 30_000, interval: 200 })
        .toBeGreaterThan(4);

      // Up, but failing the first six requests with 500.
      let served = 0;
      receiver.status = () => (++served <= 6 ? 500 : 204);
      await receiver.listen(port);
      await expect.poll(() => pending(users), { timeout: 30_000, interval: 200 }).toBe(0);

      const acknowledged = receiver.acknowledged();
      // Every event arrived (at least once), and each arrival verifies.
      expect(new Set(acknowledged.map((a) => a.id))).toEqual(new Set(events.map((e) => e.id)));
      const verifier = new Webhook(secret);
      for (const request of receiver.requests) {
        const payload = verifier.verify(request.body, request.headers as Record<string, string>);
        expect(payload).toEqual(JSON.parse(request.body));
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
        LiveEventSchema.parse(JSON.parse(request.body));
      }
      // A tampered body does not verify.
      const first = receiver.requests[0]!;
      expect(() =>
        verifier.verify(first.body.replace('"', ' "'), first.headers as Record<string, string>),
      ).toThrow();
      // In order per user: each user's events were acknowledged in id order.
      for (const user of users) {
        const ids = acknowledged
          .filter((a) => events.find((e) => e.id === a.id)!.userId === user)
          .map((a) => BigInt(a.id));
        expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        const mine = events.filter((e) => e.userId === user).map((e) => e.id);
        expect([...new Set(ids.map(String))]).toEqual(mine);
      }
      // The delivery log: refused, 500s, then one delivered row per event.
      const log = await app.db
        .selectFrom('webhookDeliveries')
        .select(['eventId', 'attempt', 'outcome', 'statusCode', 'error'])
        .where(
          'eventId',
          'in',
          events.map((e) => e.id),
        )
        .orderBy('id')
        .execute();
      expect(log.filter((l) => l.statusCode === 500)).toHaveLength(6);
      expect(log.filter((l) => l.outcome === 'failed').every((l) => l.error !== null)).toBe(true);
      const delivered = log.filter((l) => l.outcome === 'delivered');
      expect(delivered.map((l) => l.eventId).sort()).toEqual(events.map((e) => e.id).sort());
      expect(delivered.every((l) => l.statusCode === 204 && l.attempt >= 1)).toBe(true);
    },
  );

  it(
    'an event still failing after WEBHOOK_RETRY_FOR_SECONDS is given up, and later events still go out',
    { timeout: 60_000 },
    async () => {
      const receiver = new Receiver();
      let failing = true;
      receiver.status = () => (failing ? 503 : 200);
      const port = await receiver.listen();
      cleanup.push(() => receiver.close());
      await forgetEarlierEvents();
      const hooked = await webhookApp(`http://127.0.0.1:${port}/`, {
        WEBHOOK_RETRY_FOR_SECONDS: '1',
      });

      const [user] = await onboardUsers(app, 1, 'giveup');
      const first = await eventsOf([user!]);
      const deliveries = () =>
        app.db
          .selectFrom('webhookDeliveries')
          .select(['eventId', 'attempt', 'outcome', 'statusCode', 'error', 'createdAt'])
          .where(
            'eventId',
            'in',
            first.map((e) => e.id),
          )
          .orderBy('id')
          .execute();
      const givenUp = async () =>
        (await deliveries())
          .filter((l) => l.outcome === 'gave_up')
          .map((l) => l.eventId)
          .sort();
      // Waits for what is asserted (each event given up), not for an empty
      // queue; should it not come, the message says where each event got to.
      const settled = await expect
        .poll(givenUp, { timeout: 20_000, interval: 200 })
        .toEqual(first.map((e) => e.id).sort())
        .then(
          () => true,
          () => false,
        );
      if (!settled) {
        const state = {
          events: await eventsOf([user!]),
          queue: await app.db.selectFrom('webhookQueue').selectAll().execute(),
          endpoints: await app.db
            .selectFrom('webhookEndpoints')
            .select(['id', 'url', 'enabled', 'retiredAt', 'receivesSince', 'eventTypes'])
            .execute(),
          deliveries: await deliveries(),
          logs: hooked.logs.filter((line) => line.includes('webhook')),
        };
        expect.fail(`not every event was given up: ${JSON.stringify(state, null, 1)}`);
      }
      expect(await pending([user!])).toBe(0);
      const log = await deliveries();
      expect(log.some((l) => l.outcome === 'delivered')).toBe(false);
      expect(hooked.logs.some((line) => line.includes('"outcome":"gave_up"'))).toBe(true);

      failing = false;
      const token = await app.token(uniqueSubject('giveup-next'));
      await app.request('POST', '/api/user/profile', { token, body: {} });
      await expect.poll(() => receiver.acknowledged().length, { timeout: 10_000 }).toBe(3);
    },
  );

  it(
    'two instances running workers deliver each event exactly once',
    { timeout: 60_000 },
    async () => {
      const receiver = new Receiver();
      const port = await receiver.listen();
      cleanup.push(() => receiver.close());
      await forgetEarlierEvents();
      let second: DatabaseHandle | undefined;
      if (database.databaseUrl) {
        second = await openPool(database);
        cleanup.push(() => second!.close());
      }
      const url = `http://127.0.0.1:${port}/`;
      await webhookApp(url);
      await webhookApp(
        url,
        {},
        second ? ({ ...second, dataDir: database.dataDir } as never) : undefined,
      );

      const users = await onboardUsers(app, 10, 'once');
      const events = await eventsOf(users);
      await expect.poll(() => pending(users), { timeout: 20_000, interval: 200 }).toBe(0);
      const ids = receiver.requests.map((r) => r.headers['webhook-id']);
      expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
    },
  );
  it('every event names its user, and account_deleted names the same id once its own events are gone', async () => {
    const receiver = new Receiver();
    const port = await receiver.listen();
    cleanup.push(() => receiver.close());
    const worker = await webhookApp(`http://127.0.0.1:${port}/hooks`);
    const token = await worker.token(uniqueSubject('deleted-hook'));
    const onboarded = await worker.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: 'Hooks FC' },
    });
    expect(onboarded.status).toBe(201);
    const userId = onboarded.body.data.user.id as string;
    const events = await eventsOf([userId]);
    // A receiver attributes each event without asking anyone.
    const mine = () => receiver.acknowledged().filter((r) => events.some((e) => e.id === r.id));
    await expect.poll(() => mine().length, { timeout: 20_000 }).toBe(events.length);
    expect(new Set(mine().map((r) => r.event.type))).toEqual(
      new Set(['quest_completed', 'points_awarded', 'rank_changed']),
    );
    for (const { event } of mine()) {
      expect(LiveEventSchema.parse(event)).toMatchObject({ userId });
    }

    const deleted = await worker.request('DELETE', '/api/user', { token });
    expect(deleted.status).toBe(200);
    // The account's own events went with it; the deletion event belongs to no user.
    expect(await eventsOf([userId])).toEqual([]);
    const announced = () =>
      receiver
        .acknowledged()
        .find((r) => r.event.type === 'account_deleted' && r.event.data.userId === userId);
    await expect.poll(announced, { timeout: 20_000 }).toBeDefined();
    const request = receiver.requests.find((r) => r.headers['webhook-id'] === announced()?.id);
    const payload = new Webhook(secret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    );
    expect(LiveEventSchema.parse(payload)).toMatchObject({
      type: 'account_deleted',
      userId,
      data: { userId },
    });
  });

  it('once the deletion is delivered, the deleted id is stored nowhere', async () => {
    const receiver = new Receiver();
    const port = await receiver.listen();
    cleanup.push(() => receiver.close());
    const worker = await webhookApp(`http://127.0.0.1:${port}/hooks`);
    const token = await worker.token(uniqueSubject('forgotten'));
    const onboarded = await worker.request('POST', '/api/user/profile', {
      token,
      body: { handle: `gone_${Date.now().toString(36)}`, favoriteTeam: 'Hooks FC' },
    });
    const userId = onboarded.body.data.user.id as string;
    expect(await rowsNaming(userId)).not.toEqual([]);
    // Delivered first: a deletion while one is in flight waits for its lease (the next test).
    await expect.poll(() => pending([userId]), { timeout: 20_000 }).toBe(0);
    expect((await worker.request('DELETE', '/api/user', { token })).status).toBe(200);
    await expect
      .poll(() => receiver.acknowledged().some((r) => r.event.type === 'account_deleted'), {
        timeout: 20_000,
      })
      .toBe(true);
    // The delivery is logged, then the announcement (the last record of the id) is erased.
    await expect.poll(() => rowsNaming(userId), { timeout: 10_000 }).toEqual([]);
  });

  it(
    'a delivery in flight while its account is deleted is logged without error, and the deletion is announced after it',
    { timeout: 60_000 },
    async () => {
      const receiver = new Receiver();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      receiver.gate = () => (receiver.arrivals.length === 1 ? released : Promise.resolve());
      const port = await receiver.listen();
      cleanup.push(() => receiver.close());
      await forgetEarlierEvents();

      // Two workers driven round by round, as two instances would run them.
      const logs: string[] = [];
      const logger = createLogger('info', { write: (line: string) => void logs.push(line) });
      await configEndpoint(`http://127.0.0.1:${port}/`);
      const config = { retryForSeconds: 3600, allowedNetworks: LOOPBACK };
      // The lease outlasts the POST's timeout, and this test's steps while the POST is held.
      const options: WebhookWorkerOptions = { timeoutMs: 5_000, leaseSeconds: 8 };
      const first = new WebhookWorker(app.db, config, logger, options);
      const second = new WebhookWorker(app.db, config, logger, options);

      const token = await app.token(uniqueSubject('inflight'));
      const onboarded = await app.request('POST', '/api/user/profile', { token, body: {} });
      expect(onboarded.status).toBe(201);
      const userId = onboarded.body.data.user.id as string;
      const [oldest] = await eventsOf([userId]);

      const round = first.deliverRound();
      try {
        await expect.poll(() => receiver.arrivals.length, { timeout: 10_000 }).toBe(1);
        expect(JSON.parse(receiver.arrivals[0]!).id).toBe(oldest!.id);
        expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
        // The announcement waits for the delivery in flight: a receiver that
        // erases the account must not get one of its events afterwards.
        expect(await second.deliverRound()).toBe(0);
        expect(receiver.arrivals).toHaveLength(1);
      } finally {
        release();
        await round.catch(() => undefined);
      }
      await expect(round).resolves.toBe(1);
      const logged = await app.db
        .selectFrom('webhookDeliveries')
        .select(['outcome', 'statusCode', 'error'])
        .where('eventId', '=', oldest!.id)
        .execute();
      expect(logged).toEqual([{ outcome: 'delivered', statusCode: 200, error: null }]);

      // Once the lease of the delivery that was in flight has passed, the deletion goes out.
      await expect
        .poll(
          async () => {
            await second.deliverRound();
            return receiver.arrivals.map((body) => JSON.parse(body).type);
          },
          { timeout: 30_000, interval: 500 },
        )
        .toEqual([JSON.parse(receiver.arrivals[0]!).type, 'account_deleted']);
      expect(JSON.parse(receiver.arrivals[1]!).data).toEqual({ userId });
      expect(logs.filter((line) => line.includes('"level":"warn"'))).toEqual([]);
    },
  );

  it('the delivery log is kept as long as the outbox keeps events, also for events that are gone', async () => {
    const days = app.config.live.retentionDays;
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000);
    const row = (eventId: string, createdAt: Date) => ({
      eventId,
      attempt: 1,
      outcome: 'delivered' as const,
      statusCode: 200,
      error: null,
      durationMs: 1,
      createdAt,
    });
    // Ids no event has (deleted with their account, or pruned).
    await app.db
      .insertInto('webhookDeliveries')
      .values([row('900000001', at(days + 1)), row('900000002', at(days - 1))])
      .execute();
    await app.live.prune();
    const left = await app.db
      .selectFrom('webhookDeliveries')
      .select('eventId')
      .where('eventId', 'in', ['900000001', '900000002'])
      .execute();
    expect(left).toEqual([{ eventId: '900000002' }]);
  });

  /** Every attempt logged for `ids`, in the order they were logged. */
  async function attempts(ids: string[]) {
    return app.db
      .selectFrom('webhookDeliveries')
      .select(['eventId', 'attempt', 'outcome'])
      .where('eventId', 'in', ids)
      .orderBy('id')
      .execute();
  }

  /** After a redelivery of the first: each event acknowledged once, in order, the first on its second attempt. */
  async function deliveredOnce(receiver: Receiver, events: Array<{ id: string }>) {
    const ids = events.map((event) => event.id);
    expect(receiver.acknowledged().map((ack) => ack.id)).toEqual(ids);
    expect(await attempts(ids)).toEqual(
      ids.map((eventId, i) => ({ eventId, attempt: i === 0 ? 2 : 1, outcome: 'delivered' })),
    );
  }

  it.skipIf(testDbKind !== 'postgres')(
    'a worker process killed mid-POST: another instance sends the event again once the lease ends, each event delivered once',
    { timeout: 120_000 },
    async () => {
      const receiver = new Receiver();
      let holding = true;
      // The first POST is never answered: the process dies waiting for it.
      receiver.gate = () => (holding ? new Promise<void>(() => {}) : Promise.resolve());
      const port = await receiver.listen();
      cleanup.push(() => receiver.close());
      await forgetEarlierEvents();
      const url = `http://127.0.0.1:${port}/`;
      const dataDir = await mkdtemp(path.join(tmpdir(), 'ups-webhook-worker-'));
      cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
      const dying = await startServerProcess({
        DATABASE_URL: database.databaseUrl,
        DATA_DIR: dataDir,
        AUTH_ISSUER: app.issuer.issuer,
        AUTH_JWKS_URL: app.issuer.jwksUrl,
        WEBHOOK_URL: url,
        WEBHOOK_SECRET: secret,
        ...LOOPBACK_RECEIVERS,
      });
      cleanup.push(async () => {
        if (dying.child.exitCode === null && dying.child.signalCode === null) {
          await dying.stop('SIGKILL');
        }
      });

      const [userId] = await onboardUsers(app, 1, 'killed');
      const events = await eventsOf([userId!]);
      await expect.poll(() => receiver.arrivals.length, { timeout: 30_000 }).toBe(1);
      expect(JSON.parse(receiver.arrivals[0]!).id).toBe(events[0]!.id);
      await dying.stop('SIGKILL');

      // It died holding the lease: one attempt counted, none logged.
      const leased = await app.db
        .selectFrom('webhookQueue')
        .select(['attempts', sql<boolean>`next_at > now()`.as('leased')])
        .where('eventId', '=', events[0]!.id)
        .executeTakeFirstOrThrow();
      expect(leased).toEqual({ attempts: 1, leased: true });
      expect(await attempts(events.map((event) => event.id))).toEqual([]);

      holding = false;
      const second = await openPool(database);
      cleanup.push(() => second.close());
      const other = await webhookApp(url, {}, { ...second, dataDir: database.dataDir } as never);
      // While the lease holds, nothing of this user is due: not the event, not those after it.
      expect(await other.live.webhooks!.deliverRound()).toBe(0);
      expect(receiver.arrivals).toHaveLength(1);

      // The 60 s lease runs out (moved, rather than waited for).
      await app.db
        .updateTable('webhookQueue')
        .set({ nextAt: sql<Date>`now()` })
        .where('eventId', '=', events[0]!.id)
        .execute();
      await expect.poll(() => pending([userId!]), { timeout: 30_000, interval: 200 }).toBe(0);
      expect(receiver.arrivals.map((body) => JSON.parse(body).id)).toEqual([
        events[0]!.id,
        ...events.map((event) => event.id),
      ]);
      await deliveredOnce(receiver, events);
    },
  );

  it('an event claimed by a worker that never reports back goes out from another worker after the lease, not before', async () => {
    const receiver = new Receiver();
    const port = await receiver.listen();
    cleanup.push(() => receiver.close());
    await forgetEarlierEvents();
    const [userId] = await onboardUsers(app, 1, 'abandoned');
    const events = await eventsOf([userId!]);

    // What a worker that died right after its claim leaves: a lease, no POST, no log row.
    const endpointId = await configEndpoint(`http://127.0.0.1:${port}/`);
    await fanOutEvents(app.db, 100);
    const claimed = await claimDeliveries(app.db, { endpointId, limit: 10, leaseSeconds: 5 });
    expect(claimed.map((event) => event.id)).toEqual([events[0]!.id]);
    const logger = createLogger('info', { write: () => undefined });
    const config = { retryForSeconds: 3600, allowedNetworks: LOOPBACK };
    const other = new WebhookWorker(app.db, config, logger);
    expect(await other.deliverRound()).toBe(0);
    expect(receiver.arrivals).toEqual([]);

    await expect
      .poll(
        async () => {
          await other.deliverRound();
          return pending([userId!]);
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(0);
    expect(receiver.arrivals.map((body) => JSON.parse(body).id)).toEqual(
      events.map((event) => event.id),
    );
    await deliveredOnce(receiver, events);
  });
});
