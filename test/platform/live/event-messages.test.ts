import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveEventSchema } from '../../../routers/live-schemas.js';
import { Collector, liveClient } from '../../helpers/live.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { LOOPBACK_RECEIVERS, Receiver } from '../../helpers/webhook-receiver.js';

/**
 * What an event from another service announces (docs/ACTIVITY.md, "What an
 * event moves"; docs/LIVE.md): the same outbox messages as any other write,
 * on the fan's myEvents stream and, signed, to a webhook endpoint registered
 * through the admin API with a real receiver on 127.0.0.1.
 */
const { app, database } = useTestApp({ env: LOOPBACK_RECEIVERS });
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function onboarded(prefix: string, team: string) {
  const subject = uniqueSubject(prefix);
  const token = await app.token(subject);
  const response = await app.request('POST', '/api/user/profile', {
    token,
    body: { favoriteTeam: team },
  });
  expect(response.status, response.text).toBe(201);
  return { subject, token, id: response.body.data.user.id as string };
}

async function send(token: string, events: unknown[]) {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

describe('messages of an event', () => {
  it(
    'an event announces points_awarded with its source, the quest it completed and the rank it moved, on the stream and to webhooks; its reversal a negative award',
    { timeout: 60_000 },
    async () => {
      const receiver = new Receiver();
      await receiver.listen();
      cleanup.push(() => receiver.close());
      const created = await app.request('POST', '/api/admin/webhook-endpoints', {
        token: await app.serviceToken('ops-console', 'admin'),
        body: { url: receiver.url, eventTypes: [] },
      });
      expect(created.status, created.text).toBe(201);
      const secret = created.body.data.secret as string;
      // An instance running the webhook worker, on the same database.
      const worker: TestApp = await startTestApp({
        database,
        issuer: app.issuer,
        env: LOOPBACK_RECEIVERS,
        webhookOptions: { pollMs: 100, baseDelayMs: 200, maxDelayMs: 1_000, endpointsTtlMs: 100 },
      });
      cleanup.push(() => worker.close());

      const team = `Messages ${Date.now().toString(36)}`;
      const clientId = 'checkin-service';
      const service = await app.serviceToken(clientId);
      const rival = await onboarded('rival', team); // 125
      await send(service, [
        { id: `${rival.subject}-p`, subject: rival.subject, type: 'prediction_correct' },
      ]); // 150
      const fan = await onboarded('fan', team); // 125, second behind the rival
      const onboardedUpTo = BigInt(
        (
          await app.db
            .selectFrom('liveEvents')
            .select((eb) => eb.fn.max('id').as('id'))
            .where('userId', '=', fan.id)
            .executeTakeFirstOrThrow()
        ).id!,
      );

      const stream = new Collector<any>();
      const subscription = liveClient(app.url, fan.token).myEvents.subscribe(undefined, stream);
      cleanup.push(async () => subscription.unsubscribe());
      await stream.until(() => stream.states.includes('pending'), 5_000, 'subscription started');

      // Two check-ins: 20 points and the weekly match-day quest (30): 175, past the rival.
      const results = await send(service, [
        { id: `${fan.subject}-c1`, subject: fan.subject, type: 'match_checkin' },
        { id: `${fan.subject}-c2`, subject: fan.subject, type: 'match_checkin' },
      ]);
      expect(results.map((r) => [r.status, r.balance])).toEqual([
        ['recorded', 135],
        ['recorded', 175],
      ]);
      const source = (eventId: string, kind = 'event') => ({
        kind,
        type: 'match_checkin',
        clientId,
        eventId,
      });
      const recorded = [
        [
          'points_awarded',
          { delta: 10, balance: 135, questId: null, source: source(`${fan.subject}-c1`) },
        ],
        [
          'streak_extended',
          expect.objectContaining({
            streak: expect.objectContaining({ id: 'matchday_streak' }),
            current: 1,
          }),
        ],
        [
          'points_awarded',
          { delta: 10, balance: 145, questId: null, source: source(`${fan.subject}-c2`) },
        ],
        [
          'quest_completed',
          {
            quest: expect.objectContaining({
              id: 'matchday_regular',
              status: 'completed',
              progress: 2,
            }),
            tier: 1,
          },
        ],
        [
          'points_awarded',
          {
            delta: 30,
            balance: 175,
            questId: 'matchday_regular',
            source: {
              kind: 'quest',
              questId: 'matchday_regular',
              period: expect.any(String),
              tier: 1,
            },
          },
        ],
        ['rank_changed', { board: 'global', team: null, rank: 1, previousRank: 2 }],
        ['rank_changed', { board: 'team', team, rank: 1, previousRank: 2 }],
      ];
      await stream.until(
        () => stream.items.length >= recorded.length,
        10_000,
        'the event messages',
      );
      expect(stream.items.map((item) => [item.data.type, item.data.data])).toEqual(recorded);

      // The reversal of the first check-in: a negative award with its source (the rank holds).
      const reversal = await app.request('POST', '/api/events/reversals', {
        token: service,
        body: { id: `${fan.subject}-c1` },
      });
      expect(reversal.status, reversal.text).toBe(200);
      const all = [
        ...recorded,
        [
          'points_awarded',
          {
            delta: -10,
            balance: 165,
            questId: null,
            source: source(`${fan.subject}-c1`, 'reversal'),
          },
        ],
      ];
      await stream.until(() => stream.items.length >= all.length, 10_000, 'the reversal message');
      expect(stream.items.map((item) => [item.data.type, item.data.data])).toEqual(all);
      for (const item of stream.items) {
        LiveEventSchema.parse(item.data);
        expect(item.data.userId).toBe(fan.id);
        expect(item.id).toBe(item.data.id);
      }

      // The webhook receiver gets the same messages, each signed with the endpoint's secret.
      const delivered = () =>
        receiver
          .acknowledged()
          .filter(({ event }) => event.userId === fan.id && BigInt(event.id) > onboardedUpTo);
      await expect
        .poll(() => delivered().length, { timeout: 20_000, interval: 200 })
        .toBeGreaterThanOrEqual(all.length);
      const verifier = new Webhook(secret);
      const hooks = receiver.requests
        .filter((request) => request.status < 300)
        .map((request) => {
          const payload = verifier.verify(request.body, request.headers as Record<string, string>);
          expect(request.headers['webhook-id']).toBe((payload as { id: string }).id);
          return LiveEventSchema.parse(payload);
        })
        .filter((event) => event.userId === fan.id && BigInt(event.id) > onboardedUpTo);
      // At least once: a redelivery repeats an id, never another message.
      const once = hooks.filter((event, i) => hooks.findIndex((e) => e.id === event.id) === i);
      expect(once).toEqual(stream.items.map((item) => item.data));
    },
  );
});
