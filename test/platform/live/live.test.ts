import { pino } from 'pino';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { EventSource } from 'eventsource';
import { afterAll, describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { sql } from 'kysely';
import { LIVE_CHANNEL, recordEvents, type OutboxNotification } from '../../../db/queries/events.js';
import { LiveEventSchema } from '../../../routers/live-schemas.js';
import { openUserEvents, REPLAY_BATCH } from '../../../src/live/streams.js';
import { watchMyEvents } from '../../clients/live-client.example.js';
import { Collector, dataEvents, liveClient, openSse } from '../../helpers/live.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { holdsFor } from '../../helpers/waits.js';

/**
 * Live subscriptions over real HTTP (Server-Sent Events), with the typed tRPC
 * client's httpSubscriptionLink and with a plain fetch reader, on the test
 * database (PGlite or PostgreSQL).
 */
const { app, database } = useTestApp();
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
  it('an award reaches a typed subscriber (connection params)', async () => {
    const { token } = await newUser();
    const client = liveClient(app.url, token, 'connectionParams');
    const events = new Collector<any>();
    const subscription = client.myEvents.subscribe(undefined, events);
    try {
      await subscribed(events);
      await onboard(token, { handle: uniqueSubject('h').slice(0, 30).replace(/-/g, '_') });
      // welcome + claim_handle: a completion and an award each, then the rank.
      await events.until(() => events.items.length >= 5, 20_000, 'five events');
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
      const questSource = (questId: string) => ({ kind: 'quest', questId, period: null, tier: 1 });
      expect(welcomePoints.data).toEqual({
        delta: 100,
        balance: 100,
        questId: 'welcome',
        source: questSource('welcome'),
      });
      expect(handlePoints.data).toEqual({
        delta: 25,
        balance: 125,
        questId: 'claim_handle',
        source: questSource('claim_handle'),
      });
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

  it("is served by tRPC's Express adapter, the one /trpc path: its headers, and each SSE field written as a chunk of its own", async () => {
    // A stream written anywhere but the adapter shows here: tRPC's producer
    // pipes every field of an event (`event:`, `data:`, `id:`) and the blank
    // line after it through a TextEncoderStream into its own write, so each is
    // one HTTP chunk; a writer of whole events would send `connected` as one.
    // If a tRPC upgrade changes how it writes, this fingerprint changes with it.
    const { token } = await newUser('adapter');
    const port = Number(new URL(app.url).port);
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (raw += chunk));
    socket.write(
      `GET /trpc/myEvents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        'Accept: text/event-stream\r\n\r\n',
    );
    try {
      await expect.poll(() => raw.includes('event: connected'), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => app.live.hub.openStreams, { timeout: 10_000 }).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [head, body] = raw.split('\r\n\r\n', 2) as [string, string];
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      const headers = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 2),
          ]),
      );
      // tRPC's SSE headers and its Vary, as resolveResponse sets them.
      expect(headers).toMatchObject({
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
        vary: 'trpc-accept, accept',
        'transfer-encoding': 'chunked',
      });
      // The chunked body, chunk by chunk: `connected` is three writes.
      const chunks: string[] = [];
      for (let rest = body; rest.length > 0;) {
        const size = parseInt(rest.slice(0, rest.indexOf('\r\n')), 16);
        const start = rest.indexOf('\r\n') + 2;
        if (Number.isNaN(size) || rest.length < start + size + 2) break;
        chunks.push(rest.slice(start, start + size));
        rest = rest.slice(start + size + 2);
      }
      expect(chunks.slice(0, 3)).toEqual([
        'event: connected\n',
        `data: ${JSON.stringify({ reconnectAfterInactivityMs: 40_000 })}\n`,
        '\n\n',
      ]);
    } finally {
      socket.destroy();
    }
  });

  it('a new stream (no lastEventId) skips a late notification of an event that committed before it opened', async () => {
    const { subject, token } = await newUser();
    await onboard(token, {});
    const userId = (
      await app.db
        .selectFrom('users')
        .select('id')
        .where('subject', '=', subject)
        .executeTakeFirstOrThrow()
    ).id;
    const before = await app.db
      .selectFrom('liveEvents')
      .selectAll()
      .where('userId', '=', userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const reader = await openSse(`${app.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    try {
      await reader.waitFor((event) => event.event === 'connected');
      // The onboarding's notification once more, as if it reached this instance only now.
      const late: OutboxNotification = {
        u: userId,
        e: [
          {
            id: before.id,
            type: before.type,
            payload: before.payload,
            at: before.createdAt.toISOString(),
          },
        ],
      };
      await sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(late)})`.execute(app.db);
      await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: 'Late FC' } });
      await reader.waitFor((event) => event.data.includes('pick_team'));
      const received = dataEvents(reader);
      expect(received.every((event) => BigInt(event.data.id) > BigInt(before.id))).toBe(true);
      expect(received[0]!.data).toMatchObject({
        type: 'quest_completed',
        data: { quest: { id: 'pick_team' } },
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

describe('whose events', () => {
  it('every message names the signed-in user as webhooks do, live, replayed and resync alike', async () => {
    const { token } = await newUser('whose');
    const { user } = await onboard(token, { favoriteTeam: 'Whose FC' });
    const stored = await outboxAfter(user.id, '0');
    const open = (lastEventId: string) =>
      openSse(
        `${app.url}/trpc/myEvents?input=${encodeURIComponent(JSON.stringify({ lastEventId }))}`,
        { authorization: `Bearer ${token}` },
      );
    // Replayed ("0"), then live (the PATCH), then a resync (an id that is not the user's).
    const replaying = await open('0');
    const resyncing = await open('999999999');
    try {
      await replaying.waitFor(() => dataEvents(replaying).length >= stored.length);
      await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'Other FC' } });
      await replaying.waitFor((event) => event.data.includes('name_rival'));
      await resyncing.waitFor((event) => event.data.includes('"resync"'));
      const messages = [...dataEvents(replaying), ...dataEvents(resyncing)].map((m) => m.data);
      expect(new Set(messages.map((m) => m.type))).toEqual(
        new Set(['quest_completed', 'points_awarded', 'rank_changed', 'resync']),
      );
      for (const message of messages) {
        expect(LiveEventSchema.parse(message)).toMatchObject({ userId: user.id });
      }
    } finally {
      replaying.close();
      resyncing.close();
    }
  });
});

/** The user's events in the outbox after `afterId`, as the stream should replay them. */
async function outboxAfter(userId: string, afterId: string) {
  const rows = await app.db
    .selectFrom('liveEvents')
    .select(['id', 'type'])
    .where('userId', '=', userId)
    .where('id', '>', afterId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type }));
}

describe('resume', () => {
  it('lastEventId (typed client) and Last-Event-ID (plain reader) replay exactly the missed events, then go live', async () => {
    const { token } = await newUser('resume');
    const client = liveClient(app.url, token);
    const first = new Collector<any>();
    const subscription = client.myEvents.subscribe(undefined, first);
    await subscribed(first);
    const { user } = await onboard(token, {});
    await first.until(() => first.items.length >= 3, 20_000, 'welcome events');
    subscription.unsubscribe();
    const lastSeen = first.items.at(-1)!.id!;

    // Missed while disconnected: two writes, five more events.
    await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: 'Resume FC' } });
    await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'Other FC' } });
    const missed = await outboxAfter(user.id, lastSeen);
    expect(missed.length).toBeGreaterThanOrEqual(5);

    const resumed = new Collector<any>();
    const again = client.myEvents.subscribe({ lastEventId: lastSeen }, resumed);
    try {
      await resumed.until(() => resumed.items.length >= missed.length, 20_000, 'replay');
      expect(resumed.items.map((item) => ({ id: item.id, type: item.data.type }))).toEqual(missed);
      // Then live, with no repeat of the replayed ones.
      await app.request('PATCH', '/api/user', {
        token,
        body: { handle: `resume_${Date.now().toString(36)}` },
      });
      await resumed.until(
        () => resumed.items.some((i) => i.data.data?.questId === 'claim_handle'),
        20_000,
        'live after replay',
      );
      const ids = resumed.items.map((item) => item.id);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      again.unsubscribe();
    }

    const reader = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
      'last-event-id': lastSeen,
    });
    try {
      const everything = await outboxAfter(user.id, lastSeen);
      await reader.waitFor(() => dataEvents(reader).length >= everything.length);
      expect(dataEvents(reader).map((m) => ({ id: m.id, type: m.data.type }))).toEqual(everything);
    } finally {
      reader.close();
    }
  });

  it('an id the outbox does not hold for this user gets a resync carrying the newest id; "0" replays all', async () => {
    const { token } = await newUser('resync');
    const { user } = await onboard(token, {});
    const all = await outboxAfter(user.id, '0');
    const newest = all.at(-1)!.id;

    // Someone else's event id, and an id from before this user existed.
    const other = await newUser('resync-other');
    const { user: otherUser } = await onboard(other.token, {});
    const foreign = (await outboxAfter(otherUser.id, '0'))[0]!.id;
    for (const lastEventId of [foreign, '1']) {
      const reader = await openSse(
        `${app.url}/trpc/myEvents?input=${encodeURIComponent(JSON.stringify({ lastEventId }))}`,
        { authorization: `Bearer ${token}` },
      );
      try {
        const resync = await reader.waitFor((event) => event.data.includes('"resync"'));
        expect(resync.id).toBe(newest);
        expect(JSON.parse(resync.data)).toMatchObject({
          id: newest,
          type: 'resync',
          data: { reason: expect.stringContaining('no longer retained') },
        });
      } finally {
        reader.close();
      }
    }

    const reader = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
      'last-event-id': '0',
    });
    try {
      await reader.waitFor(() => dataEvents(reader).length >= all.length);
      expect(dataEvents(reader).map((m) => ({ id: m.id, type: m.data.type }))).toEqual(all);
    } finally {
      reader.close();
    }
  });

  it('an event that commits while the replay runs arrives once, in order', async () => {
    const { token } = await newUser('replay-race');
    const { user } = await onboard(token, {});
    /** Resolves once the hub has handed this user's next write to the open streams. */
    const fannedOut = () =>
      new Promise<void>((resolve) => {
        const stop = app.live.hub.onEvents((userId) => {
          if (userId !== user.id) return;
          stop();
          resolve();
        });
      });
    // More than one outbox read of replay, so the replay reads again after the write below.
    const filled = fannedOut();
    await recordEvents(
      app.db,
      user.id,
      Array.from({ length: REPLAY_BATCH }, (_, i) => ({
        type: 'points_awarded',
        payload: {
          delta: 0,
          balance: 100,
          questId: null,
          source: { kind: 'adjustment', by: 'test', note: 'filler' },
          filler: i,
        },
      })),
    );
    await filled;
    const items = await openUserEvents(app.live.hub, app.db, {
      procedure: 'myEvents',
      logger: pino({ enabled: false }),
      userId: user.id,
      ip: undefined,
      lastEventId: '0',
      transport: 'sse',
      expiresAtMs: Date.now() + 60_000,
      onDropped: () => {},
      signal: undefined,
    });
    const nextId = async () => {
      const { value } = await items.next();
      return value?.kind === 'event' ? value.event.id : JSON.stringify(value);
    };
    try {
      // The stream is registered and the replay has read its first batch.
      const ids = [await nextId()];
      // A write commits mid-replay: its events are queued live AND found by the replay's next read.
      const during = fannedOut();
      await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: 'Race FC' } });
      await during;
      const committed = await outboxAfter(user.id, '0');
      expect(committed.length).toBeGreaterThan(REPLAY_BATCH + 3);
      while (ids.length < committed.length) ids.push(await nextId());
      expect(ids).toEqual(committed.map((event) => event.id));

      // Then live: the next message is the next write's first event, not a queued repeat.
      const after = fannedOut();
      await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'Other FC' } });
      await after;
      const [next] = await outboxAfter(user.id, committed.at(-1)!.id);
      expect(await nextId()).toBe(next!.id);
    } finally {
      await items.return(undefined);
    }
  });

  it('an event id past the bigint range is a VALIDATION_FAILED error, as input and as Last-Event-ID', async () => {
    const { token } = await newUser('too-big');
    const tooBig = '9999999999999999999';
    const reader = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
      'last-event-id': tooBig,
    });
    const error = await reader.waitFor((event) => event.event === 'serialized-error');
    expect(JSON.parse(error.data).data).toMatchObject({
      code: 'BAD_REQUEST',
      errorCode: 'VALIDATION_FAILED',
      httpStatus: 400,
    });
    await reader.ended;

    const events = new Collector<any>();
    const subscription = liveClient(app.url, token).myEvents.subscribe(
      { lastEventId: tooBig },
      events,
    );
    try {
      await events.until(() => events.error !== undefined, 5_000, 'an error');
      expect((events.error as TRPCClientError<any>).data).toMatchObject({
        code: 'BAD_REQUEST',
        errorCode: 'VALIDATION_FAILED',
        httpStatus: 400,
      });
    } finally {
      subscription.unsubscribe();
    }

    // The largest bigint is an id, just not one of this user's (who has none): a resync to "0".
    const largest = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
      'last-event-id': '9223372036854775807',
    });
    try {
      const resync = await largest.waitFor((event) => event.data.includes('"resync"'));
      expect(resync.id).toBe('0');
    } finally {
      largest.close();
    }
  });

  it('a malformed lastEventId is a VALIDATION_FAILED error on the stream', async () => {
    const { token } = await newUser();
    const reader = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
      'last-event-id': 'not-an-id',
    });
    const error = await reader.waitFor((event) => event.event === 'serialized-error');
    expect(JSON.parse(error.data).data).toMatchObject({
      errorCode: 'VALIDATION_FAILED',
      httpStatus: 400,
    });
    await reader.ended;
  });
});

describe('authentication', () => {
  const refused = async (headers: Record<string, string>, query = '') => {
    const reader = await openSse(`${app.url}/trpc/myEvents${query}`, headers);
    const error = await reader.waitFor((event) => event.event === 'serialized-error');
    await reader.ended;
    expect(dataEvents(reader)).toEqual([]);
    return JSON.parse(error.data);
  };

  it('a missing, forged or expired token is refused with UNAUTHENTICATED and the stream ends', async () => {
    const expired = await app.issuer.sign(uniqueSubject(), {
      exp: Math.floor(Date.now() / 1000) - 120,
    });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer not.a.token' },
      { authorization: `Bearer ${expired}` },
    ]) {
      const error = await refused(headers);
      expect(error.data).toMatchObject({ errorCode: 'UNAUTHENTICATED', httpStatus: 401 });
    }
    // The same through connection params.
    const params = encodeURIComponent(JSON.stringify({ token: expired }));
    const error = await refused({}, `?connectionParams=${params}`);
    expect(error.data.errorCode).toBe('UNAUTHENTICATED');
  });

  it('the typed client gets a TRPCClientError with errorCode UNAUTHENTICATED', async () => {
    const events = new Collector<any>();
    const subscription = liveClient(app.url, 'forged').myEvents.subscribe(undefined, events);
    try {
      await events.until(() => events.error !== undefined, 5_000, 'an error');
      expect(events.error).toBeInstanceOf(TRPCClientError);
      expect((events.error as TRPCClientError<any>).data).toMatchObject({
        errorCode: 'UNAUTHENTICATED',
      });
    } finally {
      subscription.unsubscribe();
    }
  });

  it('a token in connection params is accepted for subscriptions only, and never logged', async () => {
    const { token } = await newUser('params');
    const params = encodeURIComponent(JSON.stringify({ token }));
    const me = await fetch(`${app.url}/trpc/me?connectionParams=${params}`);
    expect(me.status).toBe(401);
    const reader = await openSse(`${app.url}/trpc/myEvents?connectionParams=${params}`);
    await reader.waitFor((event) => event.event === 'connected');
    reader.close();
    await reader.ended;
    await expect.poll(() => app.logs.join('\n'), { timeout: 20_000 }).toContain('/trpc/myEvents');
    const logged = app.logs.join('\n');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(token.split('.')[2]!);
  });

  it('the stream ends with UNAUTHENTICATED when the token expires', async () => {
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await app.issuer.sign(uniqueSubject('expiring'), { exp });
    const reader = await openSse(`${app.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    await reader.waitFor((event) => event.event === 'connected');
    const error = await reader.waitFor((event) => event.event === 'serialized-error', 20_000);
    // Not before the token's exp, and at it: before the first heartbeat
    // (15 s), not noticed on one.
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
    expect(reader.events.filter((event) => event.event === 'ping')).toEqual([]);
    expect(JSON.parse(error.data).data.errorCode).toBe('UNAUTHENTICATED');
    expect(JSON.parse(error.data).message).toContain('expired');
    await reader.ended;
  });

  it('every stream leaves one line when it ends: procedure, user, why, how long', async () => {
    const user = await newUser('closing');
    const userId = (await app.request('GET', '/api/user', { token: user.token })).body.data.id;
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    const closed = (reason: string) =>
      app.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter(
          (line) =>
            line.msg === 'live stream closed' && line.userId === userId && line.reason === reason,
        );
    // The client goes away.
    const reader = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${user.token}`,
    });
    await reader.waitFor((event) => event.event === 'connected');
    await new Promise((resolve) => setTimeout(resolve, 300));
    reader.close();
    await expect.poll(() => closed('client closed').length, { timeout: 10_000 }).toBe(1);
    expect(closed('client closed')[0]).toMatchObject({ procedure: 'myEvents', level: 'info' });
    expect(closed('client closed')[0]!.durationMs).toBeGreaterThanOrEqual(250);
    // A board stream, its token expiring.
    const expiring = await app.issuer.sign(user.subject, {
      exp: Math.floor(Date.now() / 1000) + 2,
    });
    const board = await openSse(`${app.url}/trpc/leaderboardEvents`, {
      authorization: `Bearer ${expiring}`,
    });
    await board.ended;
    await expect.poll(() => closed('token expired').length, { timeout: 10_000 }).toBe(1);
    expect(closed('token expired')[0]).toMatchObject({ procedure: 'leaderboardEvents' });
  });
});

describe('limits', () => {
  /**
   * Opens a plain stream and resolves once it is accepted (the hub counts it)
   * or refused (`connected` comes first on every stream; a refusal follows it
   * as a serialized-error).
   */
  const openOn = async (target: TestApp, token: string, headers: Record<string, string> = {}) => {
    const before = target.live.hub.openStreams;
    const reader = await openSse(`${target.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
      ...headers,
    });
    await expect
      .poll(
        () =>
          reader.events.some((event) => event.event === 'serialized-error') ||
          target.live.hub.openStreams > before,
        { timeout: 10_000 },
      )
      .toBe(true);
    const refusal = reader.events.find((event) => event.event === 'serialized-error');
    return { reader, refusal, error: refusal ? JSON.parse(refusal.data) : null };
  };

  it('per-user and per-instance stream limits hold, and a closed stream frees its slot', async () => {
    const limited = await startTestApp({
      database,
      issuer: app.issuer,
      env: { LIVE_MAX_STREAMS_PER_USER: '2', LIVE_MAX_STREAMS: '3' },
    });
    extraApps.push(limited);
    const open = (token: string) => openOn(limited, token);
    const [a, b, c] = await Promise.all([newUser('lim-a'), newUser('lim-b'), newUser('lim-c')]);
    const a1 = await open(a.token);
    const a2 = await open(a.token);
    expect([a1.error, a2.error]).toEqual([null, null]);
    const a3 = await open(a.token);
    expect(a3.error.data).toMatchObject({ errorCode: 'RATE_LIMITED', httpStatus: 429 });
    expect(a3.error.message).toContain('At most 2 open streams per user');
    const b1 = await open(b.token);
    expect(b1.error).toBeNull();
    const c1 = await open(c.token);
    expect(c1.error.data).toMatchObject({ errorCode: 'UNAVAILABLE', httpStatus: 503 });
    // Refused before anything was written: the error's Retry-After header.
    expect(c1.reader.headers.get('retry-after')).toBe('5');
    expect(limited.live.hub.openStreams).toBe(3);

    a1.reader.close();
    await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(2);
    const c2 = await open(c.token);
    expect(c2.error).toBeNull();
    for (const stream of [a2, b1, c2]) stream.reader.close();
    await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(0);
  });

  it("a user's closed stream gives the user's slot back: one who reconnects again and again is never refused", async () => {
    const limited = await startTestApp({
      database,
      issuer: app.issuer,
      env: { LIVE_MAX_STREAMS_PER_USER: '2' },
    });
    extraApps.push(limited);
    const { token } = await newUser('reconnects');
    // Twice the per-user limit and more, one stream at a time.
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const stream = await openOn(limited, token);
      expect(stream.error, `attempt ${attempt}`).toBeNull();
      stream.reader.close();
      await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(0);
    }
  });

  it('streams per client address are limited; behind TRUST_PROXY each forwarded address counts on its own', async () => {
    const limited = await startTestApp({
      database,
      issuer: app.issuer,
      env: { LIVE_MAX_STREAMS_PER_IP: '2', TRUST_PROXY: '1' },
    });
    extraApps.push(limited);
    const users = await Promise.all([0, 1, 2, 3].map((i) => newUser(`per-ip-${i}`)));
    const fromA = { 'x-forwarded-for': '203.0.113.7' };
    const a1 = await openOn(limited, users[0]!.token, fromA);
    const a2 = await openOn(limited, users[1]!.token, fromA);
    expect([a1.error, a2.error]).toEqual([null, null]);
    // A third stream from the same address, though of another user.
    const a3 = await openOn(limited, users[2]!.token, fromA);
    expect(a3.error.data).toMatchObject({ errorCode: 'RATE_LIMITED', httpStatus: 429 });
    expect(a3.error.message).toContain('per client address');
    expect(a3.reader.headers.get('retry-after')).toBe('5');
    // Another address is not held to A's count.
    const b1 = await openOn(limited, users[3]!.token, { 'x-forwarded-for': '198.51.100.9' });
    expect(b1.error).toBeNull();
    a1.reader.close();
    await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(2);
    const a4 = await openOn(limited, users[2]!.token, fromA);
    expect(a4.error).toBeNull();
    for (const stream of [a2, b1, a4]) stream.reader.close();
    await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(0);
  });
});

describe('what the typed client (httpSubscriptionLink + EventSource) does with each refusal', () => {
  /** The tRPC error a subscription ended with. */
  const clientError = (collector: Collector<unknown>) =>
    (collector.error as TRPCClientError<any>).data as Record<string, unknown>;

  it.each([
    ['per-user', { LIVE_MAX_STREAMS_PER_USER: '1' }, 'per user'],
    ['per-address', { LIVE_MAX_STREAMS_PER_IP: '1' }, 'per client address'],
  ])(
    'over the %s limit: onError with TOO_MANY_REQUESTS, and it stops (no reconnection)',
    async (_which, env, message) => {
      const limited = await startTestApp({ database, issuer: app.issuer, env });
      extraApps.push(limited);
      const holder = await newUser('client-limit-holder');
      const { token } = 'LIVE_MAX_STREAMS_PER_USER' in env ? holder : await newUser('client-limit');
      const first = await openSse(`${limited.url}/trpc/myEvents`, {
        authorization: `Bearer ${holder.token}`,
      });
      await expect.poll(() => limited.live.hub.openStreams, { timeout: 10_000 }).toBe(1);
      // Each refusal leaves one closing line (reason `cap`): one per attempt.
      const refusals = () =>
        limited.logs.filter(
          (line) => line.includes('"live stream closed"') && line.includes('"reason":"cap"'),
        ).length;
      const events = new Collector<any>();
      const subscription = liveClient(limited.url, token).myEvents.subscribe(undefined, events);
      try {
        await events.until(() => events.error !== undefined, 15_000, 'onError');
        expect(events.error).toBeInstanceOf(TRPCClientError);
        expect(clientError(events)).toMatchObject({
          code: 'TOO_MANY_REQUESTS',
          errorCode: 'RATE_LIMITED',
          httpStatus: 429,
        });
        expect((events.error as TRPCClientError<any>).message).toContain(message);
        expect((events.error as TRPCClientError<any>).shape.code).toBe(-32029);
        expect(refusals()).toBe(1);
        // An EventSource reconnects ~3 s after its stream ends; a client that
        // stopped does not come back.
        await holdsFor('one refusal, no reconnection', 4_500, () => refusals() === 1);
        expect(refusals()).toBe(1);
        expect(events.error).toBeInstanceOf(TRPCClientError);
      } finally {
        subscription.unsubscribe();
        first.close();
      }
    },
  );

  it('a token that expired within the clock leeway is refused at once: onError with UNAUTHORIZED, no stream opened', async () => {
    // 10 s past exp: within the verifier's 30 s leeway, so the token itself verifies.
    const token = await app.issuer.sign(uniqueSubject('leeway'), {
      exp: Math.floor(Date.now() / 1000) - 10,
    });
    expect((await app.request('GET', '/api/user', { token })).status).toBe(200);
    const opened = app.live.hub.openStreams;
    const events = new Collector<any>();
    const subscription = liveClient(app.url, token).myEvents.subscribe(undefined, events);
    try {
      await events.until(() => events.error !== undefined, 15_000, 'onError');
      expect(clientError(events)).toMatchObject({
        code: 'UNAUTHORIZED',
        errorCode: 'UNAUTHENTICATED',
        httpStatus: 401,
      });
      expect(events.items).toEqual([]);
      expect(app.live.hub.openStreams).toBe(opened);
    } finally {
      subscription.unsubscribe();
    }
  });

  it("at the token's expiry the stream ends: onError with UNAUTHORIZED (subscribe again with a fresh token)", async () => {
    const token = await app.issuer.sign(uniqueSubject('expires'), {
      exp: Math.floor(Date.now() / 1000) + 3,
    });
    const events = new Collector<any>();
    const subscription = liveClient(app.url, token).myEvents.subscribe(undefined, events);
    try {
      await subscribed(events);
      await events.until(() => events.error !== undefined, 20_000, 'onError');
      expect(clientError(events)).toMatchObject({
        code: 'UNAUTHORIZED',
        errorCode: 'UNAUTHENTICATED',
      });
      expect((events.error as Error).message).toContain('expired');
    } finally {
      subscription.unsubscribe();
    }
  });

  it('a full instance: no onError, it keeps reconnecting and gets in once a slot frees', async () => {
    const full = await startTestApp({
      database,
      issuer: app.issuer,
      env: { LIVE_MAX_STREAMS: '1' },
    });
    extraApps.push(full);
    const holder = await newUser('holder');
    const held = await openSse(`${full.url}/trpc/myEvents`, {
      authorization: `Bearer ${holder.token}`,
    });
    await expect.poll(() => full.live.hub.openStreams, { timeout: 10_000 }).toBe(1);
    const { token } = await newUser('waiting');
    const events = new Collector<any>();
    const subscription = liveClient(full.url, token).myEvents.subscribe(undefined, events);
    try {
      await events.until(
        () => events.stateErrors.some((error) => error !== null),
        15_000,
        'a retryable refusal',
      );
      const refusal = events.stateErrors.find((error) => error !== null) as TRPCClientError<any>;
      expect(refusal.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', errorCode: 'UNAVAILABLE' });
      expect(events.states.at(-1)).toBe('connecting');
      held.close();
      // The EventSource comes back after its own delay (~3 s) and is let in.
      await expect.poll(() => full.live.hub.openStreams, { timeout: 30_000 }).toBe(1);
      await events.until(() => events.states.at(-1) === 'pending', 15_000, 'connected again');
      expect(events.error).toBeUndefined();
    } finally {
      subscription.unsubscribe();
      held.close();
    }
  });
});

describe('docs/GUIDE.md: subscribe from TypeScript', () => {
  it('shows test/clients/live-client.example.ts byte for byte, and it runs', async () => {
    const guide = await readFile(new URL('../../../docs/GUIDE.md', import.meta.url), 'utf8');
    const example = await readFile(
      new URL('../../clients/live-client.example.ts', import.meta.url),
      'utf8',
    );
    const section = guide.slice(guide.indexOf('\n### Subscribe from TypeScript\n'));
    expect(section.slice(section.indexOf('```ts\n') + 6).startsWith(`${example}\`\`\``)).toBe(true);

    // No global EventSource (Node 20 and 22 have none): the client package brings its own.
    expect((globalThis as { EventSource?: unknown }).EventSource).toBeUndefined();
    const { token } = await newUser('readme');
    const received: Array<{ id: string; type: string }> = [];
    const stop = watchMyEvents(app.url, token, (event) => received.push(event));
    try {
      await expect.poll(() => app.live.hub.openStreams, { timeout: 5_000 }).toBeGreaterThan(0);
      await onboard(token, {});
      await expect.poll(() => received.length, { timeout: 2_000 }).toBe(3);
      expect(received.map((event) => event.type)).toEqual([
        'quest_completed',
        'points_awarded',
        'rank_changed',
      ]);
    } finally {
      stop();
    }
  });
});
