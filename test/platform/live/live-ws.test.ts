import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { LiveEventSchema } from '../../../routers/live-schemas.js';
import { createClient } from 'user-profile-service-client';
import { CLOSE_CODES } from '../../../src/http/ws-face.js';
import { Collector } from '../../helpers/live.js';
import { dataOf, openRawSocket, wsLiveClient, type RawSocket } from '../../helpers/live-ws.js';
import { openPool } from '../../helpers/test-db.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The live subscriptions over tRPC's WebSocket transport at /trpc (src/http/ws-face.ts):
 * the typed client's wsLink and a raw `ws` socket speaking tRPC's wire format,
 * on the test database (PGlite or PostgreSQL), as live.test.ts does for SSE.
 */
const { app, database } = useTestApp();
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function signedUp(target: TestApp, prefix: string) {
  const subject = uniqueSubject(prefix);
  const token = await target.token(subject);
  const me = await target.request('GET', '/api/user', { token });
  expect(me.status).toBe(200);
  return { subject, token, userId: me.body.data.id as string };
}

/** Onboards the fan: two quests completed and awarded, then their ranks (six events). */
async function onboard(token: string, favoriteTeam: string) {
  const response = await app.request('POST', '/api/user/profile', {
    token,
    body: { favoriteTeam },
  });
  expect(response.status).toBe(201);
}

async function extraApp(env: Record<string, string>): Promise<TestApp> {
  const other = await startTestApp({ database, issuer: app.issuer, env });
  cleanup.push(() => other.close());
  return other;
}

/** Another instance on the same database (on PostgreSQL its own pool and LISTEN connection). */
async function secondInstance(): Promise<TestApp> {
  if (!database.databaseUrl) return extraApp({});
  const own = await openPool(database);
  cleanup.push(() => own.close());
  const other = await startTestApp({
    database: { ...own, dataDir: database.dataDir, databaseUrl: database.databaseUrl } as never,
    issuer: app.issuer,
  });
  cleanup.push(() => other.close());
  return other;
}

const started = (raw: RawSocket, id: number) =>
  raw.waitFor((m) => m !== 'PING' && m.id === id && m.result?.type === 'started');
const errorOf = (raw: RawSocket, id: number | null) =>
  raw.waitFor((m) => m !== 'PING' && m.id === id && m.error !== undefined) as Promise<
    Record<string, any>
  >;

describe('myEvents over the WebSocket', () => {
  it('an award reaches the typed client (wsLink, token as a connection parameter), tracked by outbox id', async () => {
    const { token } = await signedUp(app, 'ws-typed');
    const { client, close } = wsLiveClient(app.url, token);
    cleanup.push(close);
    const events = new Collector<any>();
    const subscription = client.myEvents.subscribe(undefined, events);
    try {
      await expect.poll(() => app.live.hub.openStreams, { timeout: 10_000 }).toBeGreaterThan(0);
      await onboard(token, 'WS FC');
      await events.until(() => events.items.length >= 6, 20_000, 'six events');
      expect(events.items.map((item) => item.data.type)).toEqual([
        'quest_completed',
        'points_awarded',
        'quest_completed',
        'points_awarded',
        'rank_changed',
        'rank_changed',
      ]);
      for (const item of events.items) {
        expect(item.id).toBe(item.data.id);
        LiveEventSchema.parse(item.data);
      }
    } finally {
      subscription.unsubscribe();
    }
  });

  it("the client package's createClient subscribes over the WebSocket when it has one, over SSE when told", async () => {
    const { token, userId } = await signedUp(app, 'ws-package');
    const closedLines = () =>
      app.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'live stream closed' && line.userId === userId);
    for (const [n, transport] of (['websocket', 'sse'] as const).entries()) {
      const api = createClient({
        url: app.url,
        token: () => token,
        transport,
        WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
      });
      const events = new Collector<any>();
      const subscription = api.leaderboardEvents.subscribe({ top: 1 }, events);
      await events.until(() => events.items.length >= 1, 10_000, 'the first top');
      expect(events.items[0]!.data).toMatchObject({ board: 'global' });
      subscription.unsubscribe();
      // The stream's closing line is on the connection's logger: `transport: "ws"` over the WebSocket.
      await expect.poll(() => closedLines().length, { timeout: 10_000 }).toBe(n + 1);
      expect(closedLines()[n]!.transport).toBe(transport === 'websocket' ? 'ws' : undefined);
    }
  });

  it('one connection carries several subscriptions; queries and mutations over it are refused', async () => {
    const { token } = await signedUp(app, 'ws-raw');
    const raw = await openRawSocket(app.url, { token });
    try {
      raw.subscribe(1, 'myEvents');
      raw.subscribe(2, 'leaderboardEvents', { top: 3 });
      await started(raw, 1);
      await raw.waitFor((m) => m !== 'PING' && m.id === 2 && m.result?.type === 'data');
      expect(dataOf(raw, 2)[0]!.data).toMatchObject({ board: 'global', team: null });
      raw.send({ id: 3, method: 'query', params: { path: 'me' } });
      const refused = await errorOf(raw, 3);
      expect(refused.error.data).toMatchObject({
        errorCode: 'METHOD_NOT_ALLOWED',
        httpStatus: 405,
      });
      // The connection and its subscriptions go on.
      await onboard(token, 'Raw FC');
      await raw.waitFor(() => dataOf(raw, 1).some((m) => m.data.type === 'rank_changed'), 20_000);
    } finally {
      raw.close();
    }
  });
});

describe('authentication at connect', () => {
  it('a missing, forged or expired token is answered UNAUTHENTICATED and the connection closed', async () => {
    const expired = await app.issuer.sign(uniqueSubject(), {
      exp: Math.floor(Date.now() / 1000) - 120,
    });
    for (const options of [
      {},
      { token: 'not.a.token' },
      { token: expired },
      { headers: { authorization: `Bearer ${expired}` } },
    ]) {
      const raw = await openRawSocket(app.url, options);
      const error = await errorOf(raw, null);
      expect(error.error.data).toMatchObject({ errorCode: 'UNAUTHENTICATED', httpStatus: 401 });
      await raw.closed;
    }
  });

  it("at the token's expiry its streams end with UNAUTHENTICATED and the connection closes (4401)", async () => {
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await app.issuer.sign(uniqueSubject('ws-expiring'), { exp });
    const raw = await openRawSocket(app.url, { token });
    raw.subscribe(1, 'myEvents');
    await started(raw, 1);
    const error = await errorOf(raw, 1);
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
    expect(error.error.data.errorCode).toBe('UNAUTHENTICATED');
    expect(await raw.closed).toEqual({ code: CLOSE_CODES.tokenExpired, reason: 'token expired' });
  });
});

describe('limits', () => {
  it('the per-user stream limit counts subscriptions; connections per address are refused at the handshake', async () => {
    const limited = await extraApp({
      LIVE_MAX_STREAMS_PER_USER: '2',
      LIVE_MAX_STREAMS_PER_IP: '2',
    });
    const { token } = await signedUp(limited, 'ws-limits');
    const first = await openRawSocket(limited.url, { token });
    try {
      first.subscribe(1, 'myEvents');
      first.subscribe(2, 'myEvents');
      await started(first, 1);
      await started(first, 2);
      first.subscribe(3, 'myEvents');
      const refused = await errorOf(first, 3);
      expect(refused.error.data).toMatchObject({ errorCode: 'RATE_LIMITED', httpStatus: 429 });
      expect(refused.error.message).toContain('At most 2 open streams per user');
      // A stopped subscription gives its slot back.
      first.send({ id: 1, method: 'subscription.stop' });
      await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(1);
      first.subscribe(4, 'myEvents');
      await started(first, 4);

      const second = await openRawSocket(limited.url, { token });
      const third = await openRawSocket(limited.url, { token });
      expect(await third.refusal).toMatchObject({ status: 429, headers: { 'retry-after': '5' } });
      second.close();
      await second.closed;
      // Its slot is free once the server saw it close.
      await expect
        .poll(
          async () => {
            const again = await openRawSocket(limited.url, { token });
            const open = again.socket.readyState === WebSocket.OPEN;
            again.close();
            return open;
          },
          { timeout: 10_000 },
        )
        .toBe(true);
    } finally {
      first.close();
    }
  });
});

describe('resume', () => {
  it('after the connection drops, wsLink reconnects and resumes from the last event id: no gap, no repeat', async () => {
    const { token, userId } = await signedUp(app, 'ws-resume');
    const { client, close, drop } = wsLiveClient(app.url, token);
    cleanup.push(close);
    const events = new Collector<any>();
    const subscription = client.myEvents.subscribe(undefined, events);
    try {
      await expect.poll(() => app.live.hub.openStreams, { timeout: 10_000 }).toBeGreaterThan(0);
      await onboard(token, 'One');
      await events.until(() => events.items.length >= 6, 20_000, 'first events');
      const before = app.live.hub.openStreams;
      // Cut the connection, then write at once, while it is down (or reconnecting).
      drop();
      const rival = await app.request('PATCH', '/api/user', {
        token,
        body: { rivalTeam: 'Two' },
      });
      expect(rival.status).toBe(200);
      await events.until(
        () => events.items.filter((item) => item.data.type === 'quest_completed').length >= 3,
        20_000,
        'the events written while disconnected',
      );
      await expect.poll(() => app.live.hub.openStreams, { timeout: 10_000 }).toBe(before);
      const ids = events.items.map((item) => item.id!);
      expect(new Set(ids).size).toBe(ids.length);
      const { rows } = await sql<{ id: string }>`
        select id::text as id from live_events where user_id = ${userId} order by live_events.id`.execute(
        app.db,
      );
      const after = rows.map((row) => String(row.id)).filter((id) => BigInt(id) >= BigInt(ids[0]!));
      expect(ids).toEqual(after);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('lastEventId sent with the subscription replays what came after it', async () => {
    const { token } = await signedUp(app, 'ws-replay');
    await onboard(token, 'Replay');
    const raw = await openRawSocket(app.url, { token });
    try {
      raw.subscribe(1, 'myEvents', undefined, '0');
      await raw.waitFor(() => dataOf(raw, 1).length >= 5, 20_000);
      const all = dataOf(raw, 1);
      const again = await openRawSocket(app.url, { token });
      again.subscribe(7, 'myEvents', undefined, all[1]!.id);
      await again.waitFor(() => dataOf(again, 7).length >= all.length - 2, 20_000);
      expect(dataOf(again, 7).map((m) => m.id)).toEqual(all.slice(2).map((m) => m.id));
      again.close();
    } finally {
      raw.close();
    }
  });
});

describe('two instances', () => {
  it('fans on both, writes through both: every fan gets each of their events once, in order', async () => {
    const b = await secondInstance();
    const instances = [app, b];
    const fans = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const fan = await signedUp(instances[i % 2]!, `ws-two-${i}`);
        const raw = await openRawSocket(instances[i % 2]!.url, { token: fan.token });
        raw.subscribe(1, 'myEvents');
        await started(raw, 1);
        return { ...fan, raw, i };
      }),
    );
    try {
      // Each fan's writes go through the other instance, then through their own.
      await Promise.all(
        fans.map(async (fan) => {
          const other = instances[(fan.i + 1) % 2]!;
          const onboarded = await other.request('POST', '/api/user/profile', {
            token: fan.token,
            body: { favoriteTeam: `Two FC ${fan.i % 3}` },
          });
          expect(onboarded.status).toBe(201);
          const rival = await instances[fan.i % 2]!.request('PATCH', '/api/user', {
            token: fan.token,
            body: { rivalTeam: 'Rivals' },
          });
          expect(rival.status).toBe(200);
        }),
      );
      for (const fan of fans) {
        const { rows } = await sql<{ id: string }>`
          select id::text as id from live_events where user_id = ${fan.userId} order by live_events.id`.execute(
          app.db,
        );
        expect(rows.length).toBeGreaterThanOrEqual(8);
        await fan.raw.waitFor(() => dataOf(fan.raw, 1).length >= rows.length, 20_000);
        // Give a duplicate time to show before comparing.
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(dataOf(fan.raw, 1).map((m) => m.id)).toEqual(rows.map((row) => row.id));
      }
    } finally {
      for (const fan of fans) fan.raw.close();
    }
  });
});

describe('account deletion and shutdown', () => {
  it('deleting the account ends its streams with NOT_FOUND and closes its connections (4404), on every instance', async () => {
    const b = await secondInstance();
    const { token } = await signedUp(app, 'ws-deleted');
    const onA = await openRawSocket(app.url, { token });
    const onB = await openRawSocket(b.url, { token });
    for (const raw of [onA, onB]) {
      raw.subscribe(1, 'myEvents');
      await started(raw, 1);
    }
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
    for (const raw of [onA, onB]) {
      const error = await errorOf(raw, 1);
      expect(error.error.data).toMatchObject({ errorCode: 'NOT_FOUND', httpStatus: 404 });
      expect(await raw.closed).toEqual({
        code: CLOSE_CODES.accountDeleted,
        reason: 'account deleted',
      });
    }
  });

  it('stopping the instance ends its streams with a retryable UNAVAILABLE and closes (1012)', async () => {
    const stopping = await startTestApp({ database, issuer: app.issuer });
    const { token } = await signedUp(stopping, 'ws-shutdown');
    const raw = await openRawSocket(stopping.url, { token });
    raw.subscribe(1, 'myEvents');
    await started(raw, 1);
    const closing = stopping.close();
    const error = await errorOf(raw, 1);
    expect(error.error.data).toMatchObject({ errorCode: 'UNAVAILABLE', httpStatus: 503 });
    expect((await raw.closed).code).toBe(CLOSE_CODES.serviceRestart);
    await closing;
  });
});
