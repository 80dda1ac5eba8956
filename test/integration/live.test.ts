import { afterAll, describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { recordEvents } from '../../db/queries/events.js';
import { LiveEventSchema } from '../../routers/live-schemas.js';
import { Collector, dataEvents, liveClient, openSse } from '../helpers/live.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Live subscriptions over real HTTP (Server-Sent Events), with the typed tRPC
 * client's httpSubscriptionLink and with a plain fetch reader, on the test
 * database (PGlite or PostgreSQL).
 */
const { app } = useTestApp();
const extraApps: TestApp[] = [];
afterAll(async () => {
  for (const extra of extraApps) await extra.close();
});

const subscribed = (collector: Collector<unknown>) =>
  collector.until(() => collector.states.includes('pending'), 5_000, 'subscription started');

async function newUser(prefix = 'live') {
  const subject = uniqueSubject(prefix);
  const token = await app.token(subject);
  return { subject, token };
}

async function onboard(token: string, body: Record<string, unknown>) {
  const response = await app.request('POST', '/api/user/profile', { token, body });
  expect(response.status).toBeLessThan(300);
  return response.body.data;
}

describe('myEvents', () => {
  it('an award reaches a typed subscriber (connection params) within a second', async () => {
    const { token } = await newUser();
    const client = liveClient(app.url, token, 'connectionParams');
    const events = new Collector<any>();
    const subscription = client.myEvents.subscribe(undefined, events);
    try {
      await subscribed(events);
      await onboard(token, { handle: uniqueSubject('h').slice(0, 30).replace(/-/g, '_') });
      const committed = performance.now();
      // welcome + claim_handle: a completion and an award each, then the rank.
      await events.until(() => events.items.length >= 5, 1_000, 'five events within a second');
      expect(performance.now() - committed).toBeLessThan(1_000);
      const types = events.items.map((item) => item.data.type);
      expect(types).toEqual([
        'quest_completed',
        'points_awarded',
        'quest_completed',
        'points_awarded',
        'rank_changed',
      ]);
      const [welcome, welcomePoints, , handlePoints, rank] = events.items.map((item) => item.data);
      expect(welcome.data.quest).toMatchObject({ id: 'welcome', status: 'completed', points: 100 });
      expect(welcomePoints.data).toEqual({ delta: 100, balance: 100, questId: 'welcome' });
      expect(handlePoints.data).toEqual({ delta: 25, balance: 125, questId: 'claim_handle' });
      expect(rank.data).toMatchObject({ board: 'global', team: null, previousRank: null });
      expect(rank.data.rank).toBeGreaterThanOrEqual(1);
      // Tracked: the SSE id is the outbox id, increasing.
      const ids = events.items.map((item) => BigInt(item.id!));
      expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(events.items.map((item) => item.id)).toEqual(events.items.map((i) => i.data.id));
      for (const item of events.items) LiveEventSchema.parse(item.data);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('a plain reader with the Authorization header gets the same events as text/event-stream', async () => {
    const { token } = await newUser();
    const reader = await openSse(`${app.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    try {
      expect(reader.status).toBe(200);
      expect(reader.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await reader.waitFor((event) => event.event === 'connected');
      await onboard(token, { favoriteTeam: 'Live FC' });
      await reader.waitFor(
        (event) => event.data.includes('"rank_changed"') && event.data.includes('"team"'),
      );
      const messages = dataEvents(reader);
      expect(messages.map((m) => m.data.type)).toEqual([
        'quest_completed',
        'points_awarded',
        'quest_completed',
        'points_awarded',
        'rank_changed',
        'rank_changed',
      ]);
      for (const message of messages) expect(message.id).toBe(message.data.id);
      expect(messages[5]!.data.data).toMatchObject({
        board: 'team',
        team: 'Live FC',
        rank: 1,
        previousRank: null,
      });
    } finally {
      reader.close();
    }
  });

  it('a write that awards nothing announces nothing; a rolled-back write announces nothing', async () => {
    const { token } = await newUser();
    await onboard(token, {});
    const reader = await openSse(`${app.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    try {
      await reader.waitFor((event) => event.event === 'connected');
      // No quest completes: no event.
      expect(
        (await app.request('PATCH', '/api/user', { token, body: { location: 'Leeds' } })).status,
      ).toBe(200);
      // A handle taken by someone else: 409, the transaction rolls back, nothing is announced.
      const other = await newUser();
      const handle = `taken_${Date.now().toString(36)}`;
      await onboard(other.token, { handle });
      expect((await app.request('PATCH', '/api/user', { token, body: { handle } })).status).toBe(
        409,
      );
      // Then a real award arrives, and it is the first event on the stream.
      await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: 'Quiet FC' } });
      await reader.waitFor((event) => event.data.includes('pick_team'));
      expect(dataEvents(reader)[0]!.data).toMatchObject({
        type: 'quest_completed',
        data: { quest: { id: 'pick_team' } },
      });
    } finally {
      reader.close();
    }
  });
});
