import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../../db/queries/events.js';
import type { Database } from '../../../db/schema.js';
import { dataEvents, openSse } from '../../helpers/live.js';
import {
  startOtherInstance,
  startTestApp,
  uniqueSubject,
  type TestApp,
} from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * The outbox retention (docs/LIVE.md, "Retention"): events older than
 * LIVE_RETENTION_DAYS go, and each user keeps only their newest
 * LIVE_RETENTION_PER_USER. Every instance runs it; a transaction-level
 * advisory lock lets one at a time do the work. Two app instances on one
 * database, each with its own pool on PostgreSQL (one shared handle on
 * PGlite, which is one session); `live.prune()` is the run the job makes
 * every 10 minutes.
 */
const PER_USER = 4;
const ENV = { LIVE_RETENTION_DAYS: '1', LIVE_RETENTION_PER_USER: String(PER_USER) };

let database: TestDatabase;
let issuer: TokenIssuer;
let apps: [TestApp, TestApp];

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
  apps = [
    await startTestApp({ database, issuer, env: ENV }),
    await startOtherInstance(database, { issuer, env: ENV }),
  ];
});

afterAll(async () => {
  for (const app of apps ?? []) await app.close();
  await issuer?.stop();
  await database?.destroy();
});

/** Every event in the outbox, oldest first (ids as text: they are bigints). */
async function outbox(db: Kysely<Database> = database.db) {
  const rows = await db
    .selectFrom('liveEvents')
    .select(['id', 'userId', 'type', 'payload'])
    .orderBy('id')
    .execute();
  return rows;
}

async function eventIds(userId: string | null): Promise<string[]> {
  return (await outbox()).filter((event) => event.userId === userId).map((event) => event.id);
}

/** Moves an event's creation time back: the only way to age it without waiting days. */
async function age(id: string, interval: string) {
  await sql`UPDATE live_events SET created_at = now() - ${interval}::interval WHERE id = ${id}`.execute(
    database.db,
  );
}

async function onboardedUser(app: TestApp, body: Record<string, unknown> = {}) {
  const token = await app.token(uniqueSubject('retention'));
  const response = await app.request('POST', '/api/user/profile', { token, body });
  expect(response.status).toBe(201);
  return { token, userId: response.body.data.user.id as string };
}

/** What a client resuming from `lastEventId` is sent: the `message` events' ids and types. */
async function replay(app: TestApp, token: string, lastEventId: string, count: number) {
  const reader = await openSse(`${app.url}/trpc/myEvents`, {
    authorization: `Bearer ${token}`,
    'last-event-id': lastEventId,
  });
  try {
    await reader.until(() => dataEvents(reader).length >= count, 20_000);
    return dataEvents(reader).map((event) => ({ id: event.id, type: event.data.type }));
  } finally {
    reader.close();
  }
}

describe(`outbox retention on ${testDbKind}`, () => {
  it('the age rule removes events older than LIVE_RETENTION_DAYS, also ones of no user, and keeps younger ones', async () => {
    // Three events each (welcome's quest and points, the first rank).
    const kept = await onboardedUser(apps[0]);
    const [oldest, old, young] = await eventIds(kept.userId);
    // Two deleted accounts leave one account_deleted event each, of no user.
    const deletions: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const gone = await onboardedUser(apps[0]);
      expect((await apps[0].request('DELETE', '/api/user', { token: gone.token })).status).toBe(
        200,
      );
      deletions.push((await eventIds(null)).at(-1)!);
    }
    // Either side of one day, by a minute.
    await age(oldest!, '1 day 1 minute');
    await age(old!, '1 day 1 second');
    await age(young!, '1 day -1 minute');
    await age(deletions[0]!, '1 day 1 minute');
    const before = await outbox();

    expect(await apps[0].live.prune()).toBe(3);
    const gone = new Set([oldest, old, deletions[0]]);
    expect(await outbox()).toEqual(before.filter((event) => !gone.has(event.id)));

    // A client resuming from a pruned id is told to resync to the newest;
    // from "0" it gets what is retained.
    const resync = await replay(apps[1], kept.token, oldest!, 1);
    expect(resync).toEqual([{ id: young, type: 'resync' }]);
    expect(await replay(apps[1], kept.token, '0', 1)).toEqual([
      { id: young, type: 'rank_changed' },
    ]);
  });

  it('the count rule keeps each user’s newest LIVE_RETENTION_PER_USER, looking at users with events since the last run', async () => {
    // 6 events (two quests, ranks on two boards), then a rival (quest and
    // points, and a rank when it moves); 3 events; 6 events.
    const many = await onboardedUser(apps[0], { favoriteTeam: 'Keepers FC' });
    const rival = await apps[1].request('PATCH', '/api/user', {
      token: many.token,
      body: { rivalTeam: 'Losers FC' },
    });
    expect(rival.status).toBe(200);
    const few = await onboardedUser(apps[1]);
    const six = await onboardedUser(apps[0], { favoriteTeam: 'Keepers FC' });
    const ids = {
      many: await eventIds(many.userId),
      few: await eventIds(few.userId),
      six: await eventIds(six.userId),
    };
    expect(ids.many.length).toBeGreaterThanOrEqual(8);
    expect(ids.few).toHaveLength(3);
    expect(ids.six).toHaveLength(6);
    const others = (await outbox()).filter(
      (event) => ![many.userId, few.userId, six.userId].includes(event.userId!),
    );

    const excess = ids.many.length - PER_USER + (ids.six.length - PER_USER);
    // The first run of an instance looks at every retained event.
    expect(await apps[1].live.prune()).toBe(excess);
    expect(await eventIds(many.userId)).toEqual(ids.many.slice(-PER_USER));
    expect(await eventIds(few.userId)).toEqual(ids.few);
    expect(await eventIds(six.userId)).toEqual(ids.six.slice(-PER_USER));
    // Other users' events (the previous test's, each under the count) stay.
    expect((await outbox()).filter((event) => others.some((o) => o.id === event.id))).toEqual(
      others,
    );
    // "0" replays exactly the newest ones, in order.
    expect((await replay(apps[0], many.token, '0', PER_USER)).map((event) => event.id)).toEqual(
      ids.many.slice(-PER_USER),
    );

    // New events for one user: the next run trims that user to the newest again.
    const grows = await apps[0].request('PATCH', '/api/user', {
      token: few.token,
      body: { favoriteTeam: 'Growers FC' },
    });
    expect(grows.status).toBe(200);
    const rivalled = await apps[0].request('PATCH', '/api/user', {
      token: few.token,
      body: { rivalTeam: 'Keepers FC' },
    });
    expect(rivalled.status).toBe(200);
    const grown = await eventIds(few.userId);
    expect(grown.length).toBeGreaterThan(PER_USER);
    expect(await apps[1].live.prune()).toBe(grown.length - PER_USER);
    expect(await eventIds(few.userId)).toEqual(grown.slice(-PER_USER));
    expect(await eventIds(many.userId)).toEqual(ids.many.slice(-PER_USER));
  });

  it('two instances pruning while events keep coming: every user keeps exactly their newest, none newer lost', async () => {
    const users = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => (await onboardedUser(apps[i % 2]!)).userId),
    );
    await apps[0].live.prune();
    const EVENTS = 12;
    // Each user's events carry their number, so what must be kept is known
    // without reading the outbox: the newest PER_USER of the numbers.
    const writers = users.map(async (userId, u) => {
      const db = apps[u % 2]!.db;
      for (let n = 1; n <= EVENTS; n += 1) {
        await appendEvents(userId, [
          { type: 'points_awarded', payload: { delta: n, balance: n, questId: null } },
        ]).execute(db);
      }
    });
    let pruning = true;
    const deleted: number[] = [];
    const pruners = apps.map(async (app) => {
      while (pruning) {
        const count = await app.live.prune();
        if (count !== null) deleted.push(count);
        // Leave the writers room on PGlite, where everything shares one session.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await Promise.all(writers);
    pruning = false;
    await Promise.all(pruners);
    for (const app of apps) {
      const count = await app.live.prune();
      if (count !== null) deleted.push(count);
    }

    const kept = await outbox();
    for (const userId of users) {
      const mine = kept.filter((event) => event.userId === userId);
      expect(mine.map((event) => (event.payload as { delta: number }).delta)).toEqual(
        Array.from({ length: PER_USER }, (_, i) => EVENTS - PER_USER + 1 + i),
      );
    }
    // Each onboarding's 3 events and the 8 oldest appended ones: deleted once each.
    expect(deleted.reduce((sum, n) => sum + n, 0)).toBe(users.length * (3 + EVENTS - PER_USER));
  });

  it.skipIf(testDbKind !== 'postgres')(
    'while one instance prunes, another instance’s run does nothing and returns at once',
    async () => {
      const user = await onboardedUser(apps[0], { favoriteTeam: 'Lockers FC' });
      const ids = await eventIds(user.userId);
      expect(ids.length).toBeGreaterThan(PER_USER);
      // Hold a row the first run must delete, so that run stops inside its transaction.
      const holder = new pg.Client({ connectionString: database.databaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM live_events WHERE id = $1 FOR UPDATE', [ids[0]]);
        const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
          .rows[0]!.pid;
        const first = apps[0].live.prune();
        await expect
          .poll(
            async () =>
              (
                await sql<{ n: string }>`SELECT count(*)::text AS n FROM pg_stat_activity
                  WHERE ${holderPid}::int = any(pg_blocking_pids(pid))`.execute(database.db)
              ).rows[0]!.n,
            { timeout: 20_000, interval: 50 },
          )
          .toBe('1');
        // Were it not kept out by the lock, it would wait on the held row too.
        const other = await Promise.race([
          apps[1].live.prune(),
          new Promise((resolve) => setTimeout(() => resolve('still waiting'), 20_000)),
        ]);
        expect(other).toBeNull();
        await holder.query('ROLLBACK');
        expect(await first).toBe(ids.length - PER_USER);
        expect(await eventIds(user.userId)).toEqual(ids.slice(-PER_USER));
      } finally {
        await holder.end();
      }
    },
    60_000,
  );
});
