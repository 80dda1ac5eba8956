import { Migrator, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { migrations } from '../../../db/migrations/index.js';
import { loadConfig } from '../../../src/config.js';
import { seasonAt } from '../../../src/domain/seasons.js';
import { FACES, reader } from '../../helpers/reads.js';
import {
  startOtherInstance,
  startTestApp,
  useTestApp,
  type ApiResponse,
  type TestApp,
} from '../../helpers/test-app.js';
import {
  createTestDatabase,
  testDbKind,
  type TestDatabase,
  openPool,
} from '../../helpers/test-db.js';

/**
 * Closed seasons' final standings (docs/SEASONS.md, Archives): GET
 * /api/leaderboard/seasons and GET /api/leaderboard?season=. The app's clock
 * is injected and moved; each face plays in its own years, as season boards
 * are shared by everyone.
 */
let now = new Date('2026-11-25T12:00:00.000Z');
const { app, database } = useTestApp({ clock: () => now });

const onboard = async (token: string, body: Record<string, unknown> = {}) =>
  (await app.request('POST', '/api/user/profile', { token, body })).body.data.user.id as string;

describe.each(FACES)(`season archives over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);
  const year = face === 'rest' ? 2040 : 2041;

  it('freeze the final standings at the first read after close, with today’s names', async () => {
    now = new Date(`${year}-03-07T12:00:00.000Z`);
    const week = seasonAt('week', now).id;
    const alice = await app.token();
    const aliceId = await onboard(alice, { name: 'Alice', handle: `alice_${face}_${year}` }); // 125
    const ben = await app.token();
    const benId = await onboard(ben, { name: 'Ben' }); // 100: no handle yet
    const cara = await app.token();
    const caraId = await onboard(cara, { name: 'Cara', handle: `cara_${face}_${year}` });
    await app.request('PATCH', '/api/user', { token: cara, body: { rivalTeam: 'Rivals' } });

    const open = await read()('leaderboard', alice, { period: 'week', season: week });
    expect(open).toMatchObject({ ok: false, status: 404, code: 'NOT_FOUND' });
    expect(!open.ok && open.message).toContain(`The week ${week} has not closed yet`);

    now = new Date(`${year}-03-14T00:00:00.000Z`); // a week later: that week closed
    const first = await read()('leaderboard', alice, { period: 'week', season: week });
    expect(first.ok && first.data).toMatchObject({
      period: 'week',
      season: week,
      nextCursor: null,
    });
    const points = first.ok ? first.data.entries.map((e: { points: number }) => e.points) : [];
    expect(first.ok && first.data.entries).toEqual([
      expect.objectContaining({ userId: caraId, rank: 1, name: 'Cara' }),
      expect.objectContaining({ userId: aliceId, rank: 2, name: 'Alice' }),
      expect.objectContaining({ userId: benId, rank: 3, name: 'Ben', handle: null }),
    ]);

    // A late write credited to the closed week (a clock behind) changes its live board, not
    // the archive.
    const closedAt = now;
    now = new Date(`${year}-03-07T13:00:00.000Z`);
    await app.request('PATCH', '/api/user', { token: ben, body: { rivalTeam: 'Others' } });
    const live = await database.db
      .selectFrom('leaderboardEntries')
      .select('points')
      .where('board', '=', `week:${week}`)
      .where('userId', '=', benId)
      .executeTakeFirstOrThrow();
    expect(live.points).toBe(points[2]! + 25);
    now = closedAt;
    await app.request('PATCH', '/api/user', {
      token: ben,
      body: { handle: `ben_${face}_${year}` },
    });
    const renamed = await read()('leaderboard', ben, { period: 'week', season: week });
    expect(renamed.ok && renamed.data.entries.map((e: { points: number }) => e.points)).toEqual(
      points,
    );
    expect(renamed.ok && renamed.data.entries[2]).toEqual(
      expect.objectContaining({ userId: benId, rank: 3, handle: `ben_${face}_${year}` }),
    );

    // A deleted account keeps its standing, without anyone to name.
    const deleted = await app.request('DELETE', '/api/user', { token: alice });
    expect(deleted.status).toBe(200);
    const after = await read()('leaderboard', ben, { period: 'week', season: week, limit: 2 });
    expect(after.ok && after.data.entries).toEqual([
      expect.objectContaining({ userId: caraId, rank: 1 }),
      {
        userId: null,
        handle: null,
        name: null,
        profileUrl: null,
        points: points[1],
        rank: 2,
      },
    ]);
    const next = await read()('leaderboard', ben, {
      period: 'week',
      season: week,
      limit: 2,
      cursor: after.ok ? after.data.nextCursor : undefined,
    });
    expect(next.ok && next.data).toMatchObject({
      entries: [{ userId: benId, rank: 3, points: points[2] }],
      nextCursor: null,
    });
  });

  it('list closed seasons with entries, newest first, in pages', async () => {
    const viewer = await app.token();
    now = new Date(`${year}-06-10T12:00:00.000Z`); // June
    await onboard(await app.token());
    now = new Date(`${year}-06-20T12:00:00.000Z`); // the next week: not closed yet
    await onboard(await app.token());
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 3; i += 1) {
      const page = await read()('leaderboardSeasons', viewer, { period: 'week', limit: 1, cursor });
      expect(page.ok).toBe(true);
      if (!page.ok) return;
      expect(page.data.entries).toHaveLength(1);
      seen.push(page.data.entries[0].season);
      cursor = page.data.nextCursor;
    }
    const weekOf = (day: string) => seasonAt('week', new Date(`${year}-${day}T12:00:00.000Z`)).id;
    expect(seen).toEqual([weekOf('06-10'), weekOf('03-14'), weekOf('03-07')]);
    const months = await read()('leaderboardSeasons', viewer, { period: 'month', limit: 1 });
    // June is not closed; March is the newest closed month with entries.
    expect(months.ok && months.data).toMatchObject({
      period: 'month',
      entries: [
        {
          season: `${year}-03`,
          startsAt: `${year}-03-01T00:00:00.000Z`,
          endsAt: `${year}-04-01T00:00:00.000Z`,
        },
      ],
    });
  });

  it('cut one archive when first reads race', async () => {
    now = new Date(`${year}-09-02T12:00:00.000Z`);
    const month = `${year}-09`;
    const tokens = await Promise.all([0, 1, 2, 3].map(() => app.token()));
    for (const token of tokens) await onboard(token);
    now = new Date(`${year}-10-01T00:00:00.000Z`);
    const reads = await Promise.all(
      tokens.flatMap((token) =>
        [0, 1].map(() => read()('leaderboard', token, { period: 'month', season: month })),
      ),
    );
    for (const result of reads) expect(result).toEqual(reads[0]);
    expect(reads[0]!.ok && reads[0]!.data.entries).toHaveLength(4);
    const archives = await database.db
      .selectFrom('seasonArchives')
      .select('closedAt')
      .where('board', '=', `month:${month}`)
      .execute();
    expect(archives).toHaveLength(1);
    const standings = await database.db
      .selectFrom('seasonStandings')
      .select('rank')
      .where('board', '=', `month:${month}`)
      .execute();
    expect(standings.map((row) => row.rank).sort()).toEqual([1, 2, 3, 4]);
  });

  it('answer 404 for a season nobody earned points in, store nothing, list nothing', async () => {
    const token = await app.token();
    now = new Date(`${year}-11-11T12:00:00.000Z`);
    // Before the service existed, and a closed week and month of its life without entries.
    const quietWeek = seasonAt('week', new Date(`${year}-11-03T12:00:00.000Z`)).id;
    const seasons = [
      { period: 'week', season: '1970-W01' },
      { period: 'week', season: '1000-W01' },
      { period: 'month', season: '1970-01' },
      { period: 'week', season: quietWeek },
      { period: 'month', season: `${year}-10` },
    ] as const;
    for (const input of seasons) {
      const result = await read()('leaderboard', token, input);
      expect(result, input.season).toMatchObject({ ok: false, status: 404, code: 'NOT_FOUND' });
      expect(!result.ok && result.message).toContain(`nobody earned points in the ${input.period}`);
    }
    const stored = await database.db
      .selectFrom('seasonArchives')
      .select('board')
      .where(
        'board',
        'in',
        seasons.map((s) => `${s.period}:${s.season}`),
      )
      .execute();
    expect(stored).toEqual([]);
    for (const period of ['week', 'month'] as const) {
      const listed = await read()('leaderboardSeasons', token, { period, limit: 100 });
      expect(listed.ok).toBe(true);
      const ids = listed.ok ? listed.data.entries.map((e: { season: string }) => e.season) : [];
      for (const input of seasons) expect(ids).not.toContain(input.season);
    }
  });

  it('refuse a season that is not one, or not of a season period', async () => {
    const token = await app.token();
    for (const [input, path] of [
      [{ period: 'week', season: '2026-11' }, 'season'],
      [{ period: 'week', season: '2026-W54' }, 'season'],
      [{ period: 'month', season: '2026-13' }, 'season'],
      [{ period: 'all', season: '2026-11' }, 'season'],
      [{ period: 'week', season: '2026-W01', team: 'Arsenal' }, 'team'],
    ] as const) {
      const result = await read()('leaderboard', token, input);
      expect(result).toMatchObject({ ok: false, status: 400, code: 'VALIDATION_FAILED' });
      expect(!result.ok && result.issues?.[0]?.path).toBe(path);
    }
    const future = await read()('leaderboard', token, { period: 'month', season: '2999-01' });
    expect(future).toMatchObject({ ok: false, status: 404, code: 'NOT_FOUND' });
    const badPeriod = await read()('leaderboardSeasons', token, { period: 'all' });
    expect(badPeriod).toMatchObject({ ok: false, status: 400, code: 'VALIDATION_FAILED' });
    const badCursor = await read()('leaderboardSeasons', token, { period: 'week', cursor: 'x' });
    expect(badCursor).toMatchObject({ ok: false, status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe(`the migration that drops empty archives on ${testDbKind}`, () => {
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await own?.destroy();
  });

  it('removes archives without standings and keeps the others, deleted accounts’ standings included', async () => {
    const migrator = new Migrator({
      db: own.db.withoutPlugins(),
      provider: { getMigrations: async () => migrations },
    });
    expect(
      (await migrator.migrateTo('20261124T0915_deleted_accounts_leave_no_link')).error,
    ).toBeUndefined();
    const raw = own.db.withoutPlugins() as Kysely<any>;
    await raw
      .insertInto('season_archives')
      .values(
        ['week:1970-W01', 'month:1970-01', 'week:2026-W40'].map((board) => ({
          board,
          closed_at: '2026-10-05T00:00:00Z',
        })),
      )
      .execute();
    await raw
      .insertInto('season_standings')
      .values({ board: 'week:2026-W40', rank: 1, user_id: null, points: 100 })
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await raw.selectFrom('season_archives').select('board').execute()).toEqual([
      { board: 'week:2026-W40' },
    ]);
  });
});

describe.skipIf(testDbKind !== 'postgres')(
  `the cut under its own timeout${testDbKind !== 'postgres' ? ' (skipped: PGlite has no statement_timeout)' : ''}`,
  () => {
    // Requests run under a 300 ms statement_timeout; the cut gets 2 s
    // (SEASON_ARCHIVE_TIMEOUT_MS). A cut slower than a request's timeout is
    // made by a lock it has to wait for: statement_timeout counts lock waits.
    let own: TestDatabase;
    let short: DatabaseHandle;
    let slowApp: TestApp;
    let clock = new Date('2043-05-06T12:00:00.000Z');

    beforeAll(async () => {
      own = await createTestDatabase();
      short = await openPool(own, { statementTimeoutMs: 300 });
      slowApp = await startTestApp({
        database: { ...own, ...short },
        clock: () => clock,
        env: { SEASON_ARCHIVE_TIMEOUT_MS: '2000' },
      });
    });
    afterAll(async () => {
      await slowApp?.close();
      await short?.close();
      await own?.destroy();
    });

    it('is two minutes by default', () => {
      expect(loadConfig({}).seasonArchiveTimeoutMs).toBe(120_000);
    });

    /** Holds a lock the cut's copy waits for, for `ms` or until released. */
    async function blockStandings(ms?: number) {
      const blocker = new pg.Client({ connectionString: own.databaseUrl });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE season_standings IN SHARE MODE');
      let released: Promise<void> | undefined;
      const release = () => (released ??= blocker.query('ROLLBACK').then(() => blocker.end()));
      if (ms !== undefined) setTimeout(() => void release(), ms);
      return { release };
    }

    const archives = async (board: string) =>
      (
        await own.db
          .selectFrom('seasonArchives')
          .select('board')
          .where('board', '=', board)
          .execute()
      ).length;

    it('a cut slower than the request timeout completes: the first read waits for it', async () => {
      clock = new Date('2043-05-06T12:00:00.000Z');
      const week = seasonAt('week', clock);
      const tokens = [await slowApp.token(), await slowApp.token(), await slowApp.token()];
      for (const token of tokens) {
        expect(
          (await slowApp.request('POST', '/api/user/profile', { token, body: {} })).status,
        ).toBe(201);
      }
      clock = week.endsAt;
      await blockStandings(900); // longer than 300 ms, shorter than 2 s
      const started = Date.now();
      const read = await slowApp.request('GET', `/api/leaderboard?period=week&season=${week.id}`, {
        token: tokens[0],
      });
      expect(read.status, read.text).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
      expect(read.body.data.entries.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3]);
      expect(await archives(week.board)).toBe(1);
    });

    it('a cut past its own timeout rolls back whole (503); the next read cuts it', async () => {
      clock = new Date('2043-06-10T12:00:00.000Z');
      const week = seasonAt('week', clock);
      const token = await slowApp.token();
      await slowApp.request('POST', '/api/user/profile', { token, body: {} });
      clock = week.endsAt;
      const blocker = await blockStandings();
      try {
        const path = `/api/leaderboard?period=week&season=${week.id}`;
        const timedOut = await slowApp.request('GET', path, { token });
        expect(timedOut.status).toBe(503);
        expect(await archives(week.board)).toBe(0);
        await blocker.release();
        const read = await slowApp.request('GET', path, { token });
        expect(read.status).toBe(200);
        expect(read.body.data.entries).toHaveLength(1);
        expect(await archives(week.board)).toBe(1);
      } finally {
        await blocker.release();
      }
    });
  },
);

describe.skipIf(testDbKind !== 'postgres')(
  `first reads waiting for a cut${testDbKind !== 'postgres' ? ' (skipped: PGlite is one connection, there is no pool to starve)' : ''}`,
  () => {
    // Two instances, each with a pool of 2 connections. The cut is held up by a lock
    // its copy needs, so every first read is still waiting when the other calls come.
    let own: TestDatabase;
    const apps: TestApp[] = [];
    let clock = new Date('2044-02-10T12:00:00.000Z');

    beforeAll(async () => {
      own = await createTestDatabase();
      for (let i = 0; i < 2; i += 1) {
        apps.push(
          await startOtherInstance(own, {
            poolMax: 2,
            issuer: apps[0]?.issuer,
            clock: () => clock,
          }),
        );
      }
    });
    afterAll(async () => {
      for (const started of apps.reverse()) await started.close();
      await own?.destroy();
    });

    it('hold no pool connection: other calls on both instances answer meanwhile, then one archive serves all', async () => {
      const [a, b] = apps as [TestApp, TestApp];
      const week = seasonAt('week', clock);
      const tokens = [await a.token(), await a.token(), await a.token()];
      for (const token of tokens) {
        expect((await a.request('POST', '/api/user/profile', { token, body: {} })).status).toBe(
          201,
        );
      }
      clock = week.endsAt;

      const blocker = new pg.Client({ connectionString: own.databaseUrl });
      await blocker.connect();
      let firstReads: Promise<ApiResponse>[] = [];
      try {
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE season_standings IN SHARE MODE');
        const path = `/api/leaderboard?period=week&season=${week.id}`;
        firstReads = [a, b].flatMap((app) =>
          Array.from({ length: 8 }, (_, i) =>
            app.request('GET', path, { token: tokens[i % tokens.length] }),
          ),
        );
        // The cut is under way: its copy waits for the blocker's lock.
        // (Read outside the blocker's transaction, which would keep one snapshot of the view.)
        const waiting = async () =>
          (
            await sql<{ n: number }>`
              select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'
                and query ilike '%season_standings%'`.execute(own.db)
          ).rows[0]!.n;
        await expect.poll(waiting, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0);
        // Other calls on both instances go through while the first reads wait.
        for (const app of [a, b]) {
          for (const token of tokens) {
            const me = await app.request('GET', '/api/user', { token });
            expect(me.status, me.text).toBe(200);
          }
        }
        await blocker.query('ROLLBACK');
        const answers = await Promise.all(firstReads);
        for (const answer of answers) {
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.data.entries).toEqual(answers[0]!.body.data.entries);
        }
        expect(answers[0]!.body.data.entries.map((e: { rank: number }) => e.rank)).toEqual([
          1, 2, 3,
        ]);
        const archived = await own.db
          .selectFrom('seasonStandings')
          .select('rank')
          .where('board', '=', week.board)
          .execute();
        expect(archived).toHaveLength(3);
      } finally {
        await blocker.query('ROLLBACK').catch(() => undefined);
        await Promise.allSettled(firstReads);
        await blocker.end();
      }
    });
  },
);
