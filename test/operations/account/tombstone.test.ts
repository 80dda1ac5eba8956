import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOMBSTONE_ISSUER } from '../../../db/queries/accounts.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { Receiver } from '../../helpers/webhook-receiver.js';

/**
 * A deleted account's tombstone is no one's account (docs/ACCOUNT.md, "Nothing links back"):
 * reversing an event of the deleted fan, adjusting or banning the tombstone answer 404
 * NOT_FOUND on both faces, change nothing and deliver nothing to a webhook receiver, which
 * would otherwise see the tombstone's id beside an event id it saw under the old one.
 */
let database: TestDatabase;
let app: TestApp;
const receiver = new Receiver();

beforeAll(async () => {
  database = await createTestDatabase();
  app = await startTestApp({
    database,
    webhookOptions: { pollMs: 100, baseDelayMs: 200, maxDelayMs: 1_000, endpointsTtlMs: 100 },
  });
  await receiver.listen();
  const created = await app.request('POST', '/api/admin/webhook-endpoints', {
    token: await app.serviceToken('ops-console', 'admin'),
    body: { url: receiver.url },
  });
  expect(created.status, created.text).toBe(201);
});
afterAll(async () => {
  await app?.close();
  await receiver.close();
  await database?.destroy();
});

/** Every webhook the receiver acknowledged, parsed. */
const delivered = () => receiver.acknowledged().map(({ event }) => event as any);

/** Waits until the receiver has a webhook of `userId`'s (a marker sent after what is checked). */
async function deliveredFor(userId: string) {
  await expect
    .poll(() => delivered().some((event) => event.userId === userId), {
      timeout: 20_000,
      interval: 100,
    })
    .toBe(true);
}

describe('a deleted fan’s tombstone', () => {
  it('is not reversed, adjusted or banned, on either face, and nothing about it reaches a webhook', async () => {
    const subject = uniqueSubject('leaver');
    const token = await app.token(subject);
    const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(onboarding.status, onboarding.text).toBe(201);
    const userId = onboarding.body.data.user.id as string;
    const service = await app.serviceToken('quiz-service');
    const eventId = `${subject}-q1`;
    const sent = await app.request('POST', '/api/events', {
      token: service,
      body: { events: [{ id: eventId, subject, type: 'prediction_correct' }] },
    });
    expect(sent.body.data.results[0].status).toBe('recorded');
    // The receiver saw the award under the fan's id, then the deletion.
    const awardOf = (e: any) => e.type === 'points_awarded' && e.data.source?.eventId === eventId;
    await expect.poll(() => delivered().some(awardOf), { timeout: 20_000 }).toBe(true);
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
    await expect
      .poll(
        () => delivered().some((e) => e.type === 'account_deleted' && e.data.userId === userId),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);

    const { rows } = await sql<{ userId: string }>`
      SELECT a.user_id FROM activity_events a JOIN users u ON u.id = a.user_id
      WHERE a.client_id = 'quiz-service' AND a.event_id = ${eventId}
        AND u.issuer = ${TOMBSTONE_ISSUER}`.execute(app.db);
    const tombstone = rows[0]!.userId;
    const before = await tombstoneRows(tombstone);

    // The sender reverses its event; an admin reverses it, adjusts and bans the tombstone.
    const reversal = await app.request('POST', '/api/events/reversals', {
      token: service,
      body: { id: eventId },
    });
    expect(reversal.status, reversal.text).toBe(404);
    expect(reversal.body.error.code).toBe('NOT_FOUND');
    await expect(app.trpc(service).reverseEvent.mutate({ id: eventId })).rejects.toMatchObject({
      data: { errorCode: 'NOT_FOUND', httpStatus: 404 },
    });
    const adminToken = await app.serviceToken('ops-console', 'admin');
    const asAdmin = (method: string, path: string, body: unknown) =>
      app.request(method, path, { token: adminToken, body });
    const adminReversal = await asAdmin('POST', '/api/admin/reversals', {
      clientId: 'quiz-service',
      id: eventId,
      reason: 'Answer key was wrong',
    });
    expect(adminReversal.status, adminReversal.text).toBe(404);
    const adjusted = await asAdmin('POST', `/api/admin/fans/${tombstone}/adjustments`, {
      id: 'goodwill-1',
      points: 40,
      reason: 'Goodwill',
    });
    expect(adjusted.status, adjusted.text).toBe(404);
    expect(adjusted.body.error.code).toBe('NOT_FOUND');
    const banned = await asAdmin('PUT', `/api/admin/fans/${tombstone}/ban`, {
      banned: true,
      reason: 'Bot',
    });
    expect(banned.status, banned.text).toBe(404);
    const admin = app.trpc(adminToken);
    await expect(
      admin.adminAdjustPoints.mutate({
        userId: tombstone,
        id: 'goodwill-2',
        points: 5,
        reason: 'x',
      }),
    ).rejects.toMatchObject({ data: { errorCode: 'NOT_FOUND', httpStatus: 404 } });
    await expect(
      admin.adminSetBan.mutate({ userId: tombstone, banned: true, reason: 'x' }),
    ).rejects.toMatchObject({ data: { errorCode: 'NOT_FOUND', httpStatus: 404 } });
    await expect(
      admin.adminReverseEvent.mutate({ clientId: 'quiz-service', id: eventId, reason: 'x' }),
    ).rejects.toMatchObject({ data: { errorCode: 'NOT_FOUND', httpStatus: 404 } });

    // Nothing changed, and a marker sent afterwards arrives with nothing about the tombstone before it.
    expect(await tombstoneRows(tombstone)).toEqual(before);
    const marker = await app.request('POST', '/api/user/profile', {
      token: await app.token(uniqueSubject('marker')),
      body: {},
    });
    await deliveredFor(marker.body.data.user.id);
    expect(delivered().filter((e) => e.userId === tombstone)).toEqual([]);
    expect(
      delivered()
        .filter(awardOf)
        .map((e) => e.userId),
    ).toEqual([userId]);
    expect(JSON.stringify(delivered())).not.toContain(tombstone);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});

/** Everything stored about the tombstone that a write could change. */
async function tombstoneRows(tombstone: string) {
  const [user, ledger, events, outbox, audit] = await Promise.all([
    sql`SELECT version, banned_at FROM users WHERE id = ${tombstone}`.execute(app.db),
    sql`SELECT id::text, delta FROM points_ledger WHERE user_id = ${tombstone} ORDER BY id`.execute(
      app.db,
    ),
    sql`SELECT event_id, reversed_at FROM activity_events WHERE user_id = ${tombstone}`.execute(
      app.db,
    ),
    sql`SELECT count(*)::text AS n FROM live_events WHERE user_id = ${tombstone}`.execute(app.db),
    sql`SELECT count(*)::text AS n FROM admin_audit WHERE target_key = ${tombstone}`.execute(
      app.db,
    ),
  ]);
  return [user.rows, ledger.rows, events.rows, outbox.rows, audit.rows];
}
