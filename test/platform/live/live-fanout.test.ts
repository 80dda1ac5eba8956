import { connect } from 'node:net';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { recordEvents } from '../../../db/queries/events.js';
import { LiveBoards, type BoardOptions } from '../../../src/live/boards.js';
import { StreamInbox } from '../../../src/live/inbox.js';
import { createLogger } from '../../../src/logger.js';
import { SSE_PING_MS } from '../../../src/trpc/init.js';
import { CountStatements } from '../../helpers/count-statements.js';
import { Collector, dataEvents, liveClient, openSse } from '../../helpers/live.js';
import { startServerProcess, waitForExit } from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, openPool } from '../../helpers/test-db.js';
import { startTestApp, uniqueSubject, useTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Fan-out across instances, slow consumers, shutdown, heartbeats and the
 * leaderboard stream, over real HTTP on the test database.
 */
const { app, database } = useTestApp();
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function signedUp(target: TestApp, prefix: string) {
  const token = await target.token(uniqueSubject(prefix));
  const me = await target.request('GET', '/api/user', { token });
  expect(me.status).toBe(200);
  return { token, userId: me.body.data.id as string };
}

/**
 * Another instance on the same database: on PostgreSQL its own pool and
 * LISTEN connection. `counter` counts every statement it sends.
 */
async function secondInstance(
  env: Record<string, string> = {},
  options: { counter?: CountStatements; boardOptions?: BoardOptions } = {},
): Promise<TestApp> {
  let handle: DatabaseHandle = database;
  if (database.databaseUrl) {
    const own = await openPool(database);
    cleanup.push(() => own.close());
    handle = { ...own, dataDir: database.dataDir, databaseUrl: database.databaseUrl } as never;
  }
  if (options.counter) {
    // Property by property: `database` stands for the file's database (useTestApp).
    const { kind, listen, ping, close, reads } = handle;
    handle = {
      db: handle.db.withPlugin(options.counter),
      // Reads that may go to a replica go to the (uncounted) primary; the boards' rounds use `db`.
      reads,
      kind,
      listen,
      ping,
      close,
      dataDir: database.dataDir,
      databaseUrl: database.databaseUrl,
    } as never;
  }
  const other = await startTestApp({
    database: handle as never,
    issuer: app.issuer,
    env,
    boardOptions: options.boardOptions,
  });
  cleanup.push(() => other.close());
  return other;
}

async function listenConnections(): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from pg_stat_activity
    where datname = current_database() and query ilike 'LISTEN %'`.execute(app.db);
  return Number(rows[0]!.n);
}

describe('across instances', () => {
  it('an event committed through instance B reaches a subscriber on instance A', async () => {
    const listenersBefore = testDbKind === 'postgres' ? await listenConnections() : 0;
    const b = await secondInstance();
    if (testDbKind === 'postgres') expect(await listenConnections()).toBe(listenersBefore + 1);

    const { token } = await signedUp(app, 'fanout');
    const events = new Collector<any>();
    const subscription = liveClient(app.url, token).myEvents.subscribe(undefined, events);
    // Many streams on B still use one listening connection.
    const readers = await Promise.all(
      Array.from({ length: 5 }, () =>
        openSse(`${b.url}/trpc/myEvents`, { authorization: `Bearer ${token}` }),
      ),
    );
    try {
      await events.until(() => events.states.includes('pending'), 5_000, 'subscribed');
      await expect.poll(() => b.live.hub.openStreams).toBe(5);
      if (testDbKind === 'postgres') expect(await listenConnections()).toBe(listenersBefore + 1);

      const response = await b.request('POST', '/api/user/profile', { token, body: {} });
      expect(response.status).toBe(201);
      await events.until(() => events.items.length >= 3, 20_000, 'events from B on A');
      expect(events.items.map((item) => item.data.type)).toEqual([
        'quest_completed',
        'points_awarded',
        'rank_changed',
      ]);
      for (const reader of readers) {
        await reader.waitFor((event) => event.data.includes('rank_changed'), 20_000);
        expect(dataEvents(reader).map((m) => m.id)).toEqual(events.items.map((i) => i.id));
      }
    } finally {
      subscription.unsubscribe();
      for (const reader of readers) reader.close();
    }
  });
});

describe('account deletion', () => {
  it('deleting the account ends its streams on every instance with NOT_FOUND; the typed client stops', async () => {
    const b = await secondInstance();
    const { token, userId } = await signedUp(app, 'deleted');
    const onA = await openSse(`${app.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    const onB = await openSse(`${b.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    const board = await openSse(`${b.url}/trpc/leaderboardEvents`, {
      authorization: `Bearer ${token}`,
    });
    const events = new Collector<any>();
    const subscription = liveClient(b.url, token).myEvents.subscribe(undefined, events);
    try {
      await events.until(() => events.states.includes('pending'), 10_000, 'subscribed');
      for (const reader of [onA, onB, board]) {
        await reader.waitFor((event) => event.event === 'connected', 10_000);
      }
      expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);

      for (const reader of [onA, onB, board]) {
        const error = await reader.waitFor((event) => event.event === 'serialized-error', 10_000);
        expect(JSON.parse(error.data).data).toMatchObject({
          code: 'NOT_FOUND',
          errorCode: 'NOT_FOUND',
          httpStatus: 404,
        });
        await reader.ended;
      }
      await events.until(() => events.error !== undefined, 10_000, 'onError');
      expect((events.error as any).data).toMatchObject({ errorCode: 'NOT_FOUND' });
      // Each stream's closing line says why: one on A, three on B.
      const ended = (target: TestApp) =>
        target.logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line.msg === 'live stream closed' && line.userId === userId)
          .map((line) => `${String(line.procedure)} ${String(line.reason)}`)
          .sort();
      expect(ended(app)).toEqual(['myEvents account deleted']);
      expect(ended(b)).toEqual([
        'leaderboardEvents account deleted',
        'myEvents account deleted',
        'myEvents account deleted',
      ]);
    } finally {
      subscription.unsubscribe();
      for (const reader of [onA, onB, board]) reader.close();
    }
  });

  it("after a deletion on instance A, a stream opened on instance B carries the new account's events", async () => {
    const b = await secondInstance();
    // B resolves (and caches) the identity's first account.
    const { token, userId } = await signedUp(b, 'reborn');
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);

    const reader = await openSse(`${b.url}/trpc/myEvents`, { authorization: `Bearer ${token}` });
    try {
      await reader.waitFor((event) => event.event === 'connected', 10_000);
      // The identity signs up again, through A.
      const response = await app.request('POST', '/api/user/profile', { token, body: {} });
      expect(response.status).toBe(201);
      expect(response.body.data.user.id).not.toBe(userId);
      await reader.waitFor((event) => event.data.includes('rank_changed'), 10_000);
      expect(dataEvents(reader).map((m) => m.data.type)).toEqual([
        'quest_completed',
        'points_awarded',
        'rank_changed',
      ]);
      // And B's other requests see the new account too.
      const me = await b.request('GET', '/api/user', { token });
      expect(me.body.data.id).toBe(response.body.data.user.id);
    } finally {
      reader.close();
    }
  });
});

describe('slow consumers', () => {
  /** Appends `batches` writes of `size` events for the user, each its own transaction and NOTIFY. */
  async function burst(userId: string, batches: number, size: number) {
    for (let batch = 0; batch < batches; batch += 1) {
      await app.db.transaction().execute((trx) =>
        recordEvents(
          trx,
          userId,
          Array.from({ length: size }, (_, i) => ({
            type: 'points_awarded',
            payload: {
              delta: 1,
              balance: batch * size + i + 1,
              questId: `padding-${'x'.repeat(200)}`,
              source: { kind: 'adjustment', by: 'test', note: 'padding' },
            },
          })),
        ),
      );
    }
  }

  it(
    'a reader that stops reading is dropped once it falls LIVE_STREAM_QUEUE events behind; one that reads gets everything',
    { timeout: 120_000 },
    async () => {
      const small = await startTestApp({
        database,
        issuer: app.issuer,
        env: { LIVE_STREAM_QUEUE: '400' },
      });
      cleanup.push(() => small.close());
      const slow = await signedUp(small, 'slow');
      const fast = await signedUp(small, 'fast');

      // The slow one: a raw socket that sends the request, reads the head, then never reads again.
      const socket = connect(Number(new URL(small.url).port), '127.0.0.1');
      let received = 0; // events (id lines) read before it stopped reading
      let closed = false;
      socket.on('close', () => (closed = true));
      await new Promise<void>((resolve) => {
        socket.once('connect', () => {
          socket.write(
            `GET /trpc/myEvents HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${slow.token}\r\n\r\n`,
          );
          resolve();
        });
      });
      await new Promise<void>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString().split('\nid: ').length - 1;
          if (chunk.toString().includes('event: connected')) resolve();
        });
      });
      socket.pause();
      const fastReader = await openSse(`${small.url}/trpc/myEvents`, {
        authorization: `Bearer ${fast.token}`,
      });
      await expect.poll(() => small.live.hub.openStreams).toBe(2);

      // ~300 bytes per event: 40,000 events (~12 MB) overflow any socket buffers.
      const size = 20;
      let sent = 0;
      while (sent < 40_000 && small.live.hub.openStreams === 2) {
        await burst(slow.userId, 50, size);
        sent += 50 * size;
      }
      await expect.poll(() => small.live.hub.openStreams, { timeout: 5_000 }).toBe(1);
      expect(small.logs.some((line) => line.includes('slow stream dropped'))).toBe(true);
      socket.resume();
      await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
      // Reading again gets only what was already in the socket buffers: it was
      // cut off, not buffered for.
      expect(received).toBeLessThan(sent);

      // A reader that keeps up is never dropped, however many events pass (2,000
      // here, five times the queue; this test's process also runs the server and
      // the database, so it writes 200 at a time and lets the reader catch up).
      for (let done = 0; done < 2_000; done += 200) {
        await burst(fast.userId, 10, size);
        await fastReader.until(() => fastReader.messages >= done + 200, 10_000);
      }
      expect(fastReader.messages).toBe(2_000);
      expect(small.live.hub.openStreams).toBe(1);
      fastReader.close();
    },
  );
});

describe('leaderboardEvents', () => {
  it('sends the current top first, then the new top on a change, at most once a second', async () => {
    const team = `Board ${Date.now().toString(36)}`;
    const fan = await signedUp(app, 'board');
    const events = new Collector<any>();
    const subscription = liveClient(app.url, fan.token).leaderboardEvents.subscribe(
      { team, top: 3 },
      events,
    );
    try {
      await events.until(() => events.items.length >= 1, 5_000, 'the first top');
      expect(events.items[0]!.data).toMatchObject({ board: 'team', team, entries: [] });

      // Four fans onboard at once: the board changes four times, coalesced.
      const fans = await Promise.all(
        Array.from({ length: 4 }, (_, i) => signedUp(app, `board-${i}`)),
      );
      await Promise.all(
        fans.map((f, i) =>
          app.request('POST', '/api/user/profile', {
            token: f.token,
            body: { favoriteTeam: team, ...(i === 0 ? { name: 'Top Fan' } : {}) },
          }),
        ),
      );
      await events.until(
        () => events.items.at(-1)!.data.entries.length === 3,
        5_000,
        'the top three',
      );
      const last = events.items.at(-1)!.data;
      expect(last.entries.map((e: any) => e.rank)).toEqual([1, 2, 3]);
      expect(last.entries.every((e: any) => e.points === 125)).toBe(true);
      const times = events.items.map((item) => Date.parse(item.data.timestamp));
      for (let i = 1; i < times.length; i += 1) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(990);
      }
      // Fewer messages than changes: the four onboardings were coalesced.
      expect(events.items.length).toBeLessThan(5);
    } finally {
      subscription.unsubscribe();
    }
  });

  it(
    'the board reads a write costs do not grow with the number of boards streamed',
    { timeout: 120_000 },
    async () => {
      const counter = new CountStatements();
      // No 30-second re-read during the test: only what the writes cause is counted.
      const watcher = await secondInstance(
        { LIVE_MAX_STREAMS_PER_USER: '100' },
        { counter, boardOptions: { refreshMs: 3_600_000 } },
      );
      const stamp = Date.now().toString(36);
      const teams = Array.from({ length: 24 }, (_, i) => `Many ${stamp} ${i}`);
      // One fan per team, onboarded through the other instance.
      const fans = await Promise.all(
        teams.map(async (team, i) => {
          const fan = await signedUp(app, `many-${i}`);
          const onboarded = await app.request('POST', '/api/user/profile', {
            token: fan.token,
            body: { favoriteTeam: team },
          });
          expect(onboarded.status).toBe(201);
          return fan;
        }),
      );
      const viewer = await signedUp(watcher, 'many-viewer');

      /** Waits until the instance has sent no statement for a while (its round is over). */
      const quiet = async () => {
        let last = -1;
        for (let i = 0; i < 20 && counter.count !== last; i += 1) {
          last = counter.count;
          await new Promise((resolve) => setTimeout(resolve, 1_500));
        }
        expect(counter.count).toBe(last);
      };

      /** Statements the watching instance sends for one awarding write by `writer`, with `boards` team boards streamed. */
      const statementsPerWrite = async (boards: number, writer: number) => {
        const readers = await Promise.all(
          teams
            .slice(0, boards)
            .map((team) =>
              openSse(
                `${watcher.url}/trpc/leaderboardEvents?input=${encodeURIComponent(JSON.stringify({ team, top: 3 }))}`,
                { authorization: `Bearer ${viewer.token}` },
              ),
            ),
        );
        try {
          for (const reader of readers) await reader.until(() => reader.messages >= 1, 10_000);
          await quiet();
          const before = counter.count;
          const seen = readers[writer]!.messages;
          // rivalTeam completes name_rival: an award, so the writer's board moves.
          const write = await app.request('PATCH', '/api/user', {
            token: fans[writer]!.token,
            body: { rivalTeam: 'Rivals' },
          });
          expect(write.status).toBe(200);
          await readers[writer]!.until(() => readers[writer]!.messages > seen, 10_000);
          await quiet();
          return counter.count - before;
        } finally {
          for (const reader of readers) reader.close();
          await expect.poll(() => watcher.live.hub.openStreams, { timeout: 10_000 }).toBe(0);
        }
      };

      const few = await statementsPerWrite(2, 0);
      const many = await statementsPerWrite(teams.length, 1);
      // A round reads the writers' teams and every moved team board in one statement each.
      expect(few).toBeGreaterThan(0);
      expect(few).toBeLessThanOrEqual(3);
      expect(many).toBe(few);
    },
  );

  it('refuses top over 100 and unknown keys', async () => {
    const { token } = await signedUp(app, 'board-bad');
    for (const input of [{ top: 101 }, { top: 0 }, { board: 'x' }]) {
      const reader = await openSse(
        `${app.url}/trpc/leaderboardEvents?input=${encodeURIComponent(JSON.stringify(input))}`,
        { authorization: `Bearer ${token}` },
      );
      const error = await reader.waitFor((event) => event.event === 'serialized-error');
      expect(JSON.parse(error.data).data.errorCode).toBe('VALIDATION_FAILED');
      await reader.ended;
    }
  });
});

describe('the shared board reads (LiveBoards)', () => {
  const watcher = () =>
    new StreamInbox(
      'u',
      'board',
      10,
      () => {},
      () => {},
    );

  it('one team, however it is spelled, is one board; a board nobody watches is dropped', async () => {
    const boards = new LiveBoards(app.db, createLogger('silent'));
    const plain = await boards.watch('Cache FC', 10, watcher());
    // Cases, fullwidth letters, a zero-width space: the same teamKey() as the board filter uses.
    const variants = [];
    for (const variant of ['CACHE FC', 'ＣＡＣＨＥ ＦＣ', 'Cache\u200B FC']) {
      variants.push(await boards.watch(variant, 10, watcher()));
    }
    expect(boards.size).toBe(1);
    const global = await boards.watch(undefined, 10, watcher());
    expect(boards.size).toBe(2);
    for (const watch of [plain, ...variants, global]) watch.close();
    expect(boards.size).toBe(0);
    boards.stop();
  });

  it('the boards of an instance hold a bounded number of entries; a stream past it is refused, retryably', async () => {
    const boards = new LiveBoards(app.db, createLogger('silent'), { maxEntries: 25 });
    const a = await boards.watch('Bound A', 10, watcher());
    const b = await boards.watch('Bound B', 10, watcher());
    const refused = await boards.watch('Bound C', 10, watcher()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', retryAfterSeconds: 5 });
    expect(boards.size).toBe(2);
    // Another stream of a board already held costs nothing more up to its top.
    const a2 = await boards.watch('BOUND A', 5, watcher());
    expect(boards.entries).toBe(20);
    b.close();
    const c = await boards.watch('Bound C', 10, watcher());
    expect(boards.entries).toBe(20);
    for (const watch of [a, a2, c]) watch.close();
    expect(boards.entries).toBe(0);
    boards.stop();
  });
});

describe('heartbeats and shutdown', () => {
  it('an idle stream gets a ping every 15 s', { timeout: SSE_PING_MS + 10_000 }, async () => {
    const { token } = await signedUp(app, 'ping');
    const reader = await openSse(`${app.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
    });
    try {
      const connected = await reader.waitFor((event) => event.event === 'connected');
      expect(JSON.parse(connected.data)).toEqual({ reconnectAfterInactivityMs: 40_000 });
      const opened = Date.now();
      await reader.waitFor((event) => event.event === 'ping', SSE_PING_MS + 5_000);
      expect(Date.now() - opened).toBeGreaterThanOrEqual(SSE_PING_MS - 1_000);
    } finally {
      reader.close();
    }
  });

  it('stopping an instance ends its streams with a retryable UNAVAILABLE; the typed client starts reconnecting', async () => {
    const doomed = await secondInstance();
    const { token } = await signedUp(doomed, 'stop');
    const reader = await openSse(`${doomed.url}/trpc/myEvents`, {
      authorization: `Bearer ${token}`,
    });
    const events = new Collector<any>();
    const subscription = liveClient(doomed.url, token).myEvents.subscribe(undefined, events);
    try {
      await events.until(() => events.states.includes('pending'), 5_000, 'subscribed');
      await expect.poll(() => doomed.live.hub.openStreams).toBe(2);
      await doomed.live.stop();
      const error = await reader.waitFor((event) => event.event === 'serialized-error');
      expect(JSON.parse(error.data).data).toMatchObject({
        errorCode: 'UNAVAILABLE',
        httpStatus: 503,
      });
      await reader.ended;
      await events.until(() => events.states.at(-1) === 'connecting', 5_000, 'reconnecting');
      expect(events.error).toBeUndefined();
      expect(doomed.live.hub.openStreams).toBe(0);
    } finally {
      subscription.unsubscribe();
      reader.close();
    }
  });

  it(
    'SIGTERM with open streams: they end, the process exits 0 well before the shutdown timeout',
    { timeout: 120_000 },
    async () => {
      const own = await createTestDatabase();
      cleanup.push(() => own.destroy());
      // PGlite is one process at a time: the service process takes the data over.
      if (testDbKind === 'pglite') await own.close();
      const service = await startServerProcess({
        DATABASE_URL: own.databaseUrl,
        DATA_DIR: own.dataDir,
        AUTH_ISSUER: app.issuer.issuer,
        AUTH_JWKS_URL: app.issuer.jwksUrl,
        SHUTDOWN_TIMEOUT_MS: '30000',
      });
      cleanup.push(async () => {
        if (service.child.exitCode === null) await service.stop('SIGKILL');
      });
      const token = await app.issuer.sign(uniqueSubject('sigterm'));
      const readers = await Promise.all(
        [0, 1, 2].map(() =>
          openSse(`${service.url}/trpc/myEvents`, { authorization: `Bearer ${token}` }),
        ),
      );
      for (const reader of readers) await reader.waitFor((event) => event.event === 'connected');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = waitForExit(service.child);
      service.child.kill('SIGTERM');
      for (const reader of readers) {
        // Well within SHUTDOWN_TIMEOUT_MS, after which connections are cut without an error event.
        const error = await reader.waitFor((event) => event.event === 'serialized-error', 20_000);
        expect(JSON.parse(error.data).data.errorCode).toBe('UNAVAILABLE');
        await reader.ended;
      }
      expect(await exited).toBe(0);
      // The streams ended, so draining finished without the shutdown timeout.
      expect(service.stdout.filter((line) => line.includes('shutdown timeout'))).toEqual([]);
    },
  );
});
