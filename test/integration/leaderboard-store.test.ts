import { randomUUID } from 'node:crypto';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRankedEntry, leaderboardPage, neighbours } from '../../db/queries/leaderboard.js';
import { migrateToLatest } from '../../db/migrate.js';
import { rebuildRankCounts } from '../../db/queries/rank.js';
import { migrations } from '../../db/migrations/index.js';
import type { Database } from '../../db/schema.js';
import { consistencyProblems } from '../helpers/consistency.js';
import { useTestApp } from '../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../helpers/test-db.js';

/**
 * The leaderboard's storage: the team_key column (migration backfill and
 * maintenance on every write path) and the one rank order.
 */

let db: Kysely<Database>;

const { app, database } = useTestApp();

beforeAll(async () => {
  db = database.db;
});

async function teamKeyOf(userId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('leaderboardEntries')
    .select('teamKey')
    .where('board', '=', 'all')
    .where('userId', '=', userId)
    .executeTakeFirst();
  return row === undefined ? undefined : row.teamKey;
}

describe(`team_key maintenance on ${testDbKind}`, () => {
  it('is set at onboarding and follows every favoriteTeam change after it', async () => {
    const token = await app.token();
    const before = await app.request('PATCH', '/api/user', {
      token,
      body: { favoriteTeam: '  Spurs ' },
    });
    expect(before.status).toBe(200);
    const userId = before.body.data.id as string;
    // No entry before onboarding: nothing to keep.
    expect(await teamKeyOf(userId)).toBeUndefined();

    const onboarded = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(onboarded.status).toBe(201);
    expect(await teamKeyOf(userId)).toBe('spurs');

    await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: 'Real MADRID' } });
    expect(await teamKeyOf(userId)).toBe('real madrid');

    // A write that leaves the team alone leaves the key alone.
    await app.request('PATCH', '/api/user', { token, body: { name: 'Fan' } });
    expect(await teamKeyOf(userId)).toBe('real madrid');

    // Onboarding again with a new team moves the key too.
    await app.request('POST', '/api/user/profile', { token, body: { favoriteTeam: 'Ajax' } });
    expect(await teamKeyOf(userId)).toBe('ajax');

    await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: null } });
    expect(await teamKeyOf(userId)).toBeNull();
  });

  it('is left as it was when the write fails', async () => {
    const token = await app.token();
    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: 'Celtic' },
    });
    const userId = onboarded.body.data.user.id as string;
    const refused = await app.request('PATCH', '/api/user', {
      token,
      body: { favoriteTeam: 'Rangers', rivalTeam: 'rangers' },
    });
    expect(refused.status).toBe(400);
    expect(await teamKeyOf(userId)).toBe('celtic');
  });
});

describe('the team_key migration', () => {
  let own: TestDatabase;

  beforeAll(async () => {
    own = await createTestDatabase();
  });

  afterAll(async () => {
    await own?.destroy();
  });

  it('backfills lower(favorite_team) for existing entries, and migrates down again', async () => {
    const migrator = new Migrator({
      db: own.db.withoutPlugins(),
      provider: { getMigrations: async () => migrations },
    });
    const down = await migrator.migrateTo('20261122T1800_points_quests_leaderboard');
    expect(down.error).toBeUndefined();

    const raw = own.db.withoutPlugins() as Kysely<any>;
    const ids: string[] = [];
    for (const team of ['Boca JUNIORS', null]) {
      const id = randomUUID();
      ids.push(id);
      await raw.insertInto('users').values({ id, issuer: 'https://i.test', subject: id }).execute();
      await raw.insertInto('profiles').values({ user_id: id, favorite_team: team }).execute();
      await raw.insertInto('leaderboard_entries').values({ user_id: id, points: 10 }).execute();
    }

    const up = await migrator.migrateTo('20261123T1500_leaderboard_team_key');
    expect(up.results?.map((result) => result.migrationName)).toEqual([
      '20261123T1500_leaderboard_team_key',
    ]);
    const rows = await own.db
      .selectFrom('leaderboardEntries')
      .select(['userId', 'teamKey'])
      .where('userId', 'in', ids)
      .execute();
    expect(new Map(rows.map((row) => [row.userId, row.teamKey]))).toEqual(
      new Map([
        [ids[0], 'boca juniors'],
        [ids[1], null],
      ]),
    );
    const indexes = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where tablename = 'leaderboard_entries'
      order by indexname`.execute(own.db);
    const defs = indexes.rows.map((row) => row.indexdef.replace(/\s+/g, ' '));
    expect(defs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /leaderboard_entries_rank_idx .*\(\(- points\)\), reached_at, user_id\) INCLUDE \(points\)/,
        ),
        expect.stringMatching(
          /leaderboard_entries_team_rank_idx .*\(team_key, \(\(- points\)\), reached_at, user_id\) INCLUDE \(points\) WHERE \(team_key IS NOT NULL\)/,
        ),
      ]),
    );

    const back = await migrator.migrateDown();
    expect(back.error).toBeUndefined();
    const columns = await sql<{ columnName: string }>`
      select column_name from information_schema.columns
      where table_name = 'leaderboard_entries'`.execute(own.db);
    expect(columns.rows.map((row) => row.columnName)).not.toContain('team_key');
    expect(await migrateToLatest(own.db)).toContain('20261123T1500_leaderboard_team_key');
  });
});

describe('the rank order', () => {
  let own: TestDatabase;
  let odb: Kysely<Database>;
  /** user ids in expected rank order on the whole board */
  const order: string[] = [];
  const teamOf = new Map<string, string | null>();

  beforeAll(async () => {
    own = await createTestDatabase();
    odb = own.db;
    // Points, reached_seq and team: ties on points broken by the smaller
    // sequence number, which falls on both sides of every bucket boundary of
    // rank_counts (2^8, 2^16, 2^24, 2^32) so each level of the rank sum counts.
    const specs: Array<{ points: number; seq: bigint; team: string | null }> = [
      { points: 300, seq: 5n, team: 'a' },
      { points: 200, seq: 255n, team: 'b' },
      { points: 200, seq: 256n, team: 'a' },
      { points: 200, seq: 2n ** 16n + 1n, team: 'a' },
      { points: 200, seq: 2n ** 24n - 1n, team: null },
      { points: 200, seq: 2n ** 24n, team: 'a' },
      { points: 200, seq: 2n ** 32n + 7n, team: 'b' },
      { points: 200, seq: 2n ** 40n, team: 'a' },
      { points: 100, seq: 1n, team: 'b' },
      { points: 0, seq: 3n, team: 'a' },
    ];
    const rows = specs.map((spec) => ({ ...spec, userId: randomUUID() }));
    // Expected: points desc, seq asc.
    const sorted = [...rows].sort(
      (x, y) => y.points - x.points || (x.seq < y.seq ? -1 : x.seq > y.seq ? 1 : 0),
    );
    order.push(...sorted.map((row) => row.userId));
    for (const row of rows) {
      teamOf.set(row.userId, row.team);
      await odb
        .insertInto('users')
        .values({ id: row.userId, issuer: 'https://i.test', subject: row.userId })
        .execute();
      await odb
        .insertInto('leaderboardEntries')
        .values({
          board: 'all',
          userId: row.userId,
          points: row.points,
          reachedSeq: row.seq.toString(),
          reachedAt: new Date(),
          updatedAt: new Date(),
          teamKey: row.team,
        })
        .execute();
    }
    await rebuildRankCounts(odb);
  });

  afterAll(async () => {
    await own?.destroy();
  });

  it('ranks by points, then reached_seq, across every rank_counts level', async () => {
    for (const [index, userId] of order.entries()) {
      const entry = await findRankedEntry(odb, userId);
      expect(entry?.rank).toBe(index + 1);
    }
    const page = await leaderboardPage(odb, { limit: 100 });
    expect(page.map((entry) => entry.userId)).toEqual(order);
    expect(page.map((entry) => entry.rank)).toEqual(order.map((_, index) => index + 1));
  });

  it('ranks within a team, matching the team case-insensitively', async () => {
    const teamA = order.filter((id) => teamOf.get(id) === 'a');
    for (const [index, userId] of teamA.entries()) {
      const entry = await findRankedEntry(odb, userId, { team: 'A' });
      expect(entry?.rank).toBe(index + 1);
    }
    const teamB = order.find((id) => teamOf.get(id) === 'b')!;
    expect(await findRankedEntry(odb, teamB, { team: 'a' })).toBeUndefined();
    const page = await leaderboardPage(odb, { limit: 100, team: 'A' });
    expect(page.map((entry) => [entry.userId, entry.rank])).toEqual(
      teamA.map((id, index) => [id, index + 1]),
    );
  });

  it('pages after a position with exact ranks, and finds neighbours on both sides', async () => {
    const first = await leaderboardPage(odb, { limit: 3 });
    const second = await leaderboardPage(odb, { limit: 3, after: first.at(-1)! });
    expect(second.map((entry) => [entry.userId, entry.rank])).toEqual(
      order.slice(3, 6).map((id, index) => [id, index + 4]),
    );

    const middle = (await findRankedEntry(odb, order[3]!))!;
    const around = await neighbours(odb, middle, { count: 2 });
    expect(around.above.map((entry) => [entry.userId, entry.rank])).toEqual([
      [order[1], 2],
      [order[2], 3],
    ]);
    expect(around.below.map((entry) => [entry.userId, entry.rank])).toEqual([
      [order[4], 5],
      [order[5], 6],
    ]);
  });
});

describe('the boards migration', () => {
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await own?.destroy();
  });

  it('numbers existing entries in reached order, fills season boards from the ledger and counts them', async () => {
    const migrator = new Migrator({
      db: own.db.withoutPlugins(),
      provider: { getMigrations: async () => migrations },
    });
    expect((await migrator.migrateTo('20261123T1930_user_version')).error).toBeUndefined();
    const raw = own.db.withoutPlugins() as Kysely<any>;
    // Three users tied on 125 points, reached in the order c, a, b; one with 100.
    const spec = [
      { name: 'a', points: 125, at: '2026-11-10T10:00:00.000002Z', team: 'Ajax' },
      { name: 'b', points: 125, at: '2026-11-10T10:00:00.000003Z', team: null },
      { name: 'c', points: 125, at: '2026-11-10T10:00:00.000001Z', team: 'Ajax' },
      { name: 'd', points: 100, at: '2026-10-30T10:00:00Z', team: null },
    ];
    const ids = new Map<string, string>();
    for (const user of spec) {
      const id = randomUUID();
      ids.set(user.name, id);
      await raw.insertInto('users').values({ id, issuer: 'https://m.test', subject: id }).execute();
      await raw
        .insertInto('leaderboard_entries')
        .values({
          user_id: id,
          points: user.points,
          reached_at: user.at,
          team_key: user.team?.toLowerCase() ?? null,
        })
        .execute();
      await raw
        .insertInto('points_ledger')
        .values({
          user_id: id,
          delta: user.points,
          reason: 'quest_completed',
          idempotency_key: 'k',
          balance_after: user.points,
          created_at: user.at,
        })
        .execute();
    }
    expect((await migrator.migrateTo('20261123T2000_boards_rank_counts')).error).toBeUndefined();

    const order = await leaderboardPage(own.db, { limit: 10 });
    expect(order.map((entry) => entry.userId)).toEqual(
      ['c', 'a', 'b', 'd'].map((name) => ids.get(name)),
    );
    for (const entry of order) {
      expect((await findRankedEntry(own.db, entry.userId))?.rank).toBe(entry.rank);
    }
    expect((await findRankedEntry(own.db, ids.get('a')!, { team: 'AJAX' }))?.rank).toBe(2);
    const boards = await own.db
      .selectFrom('leaderboardEntries')
      .select(['board', 'userId', 'points'])
      .where('userId', '=', ids.get('d')!)
      .orderBy('board')
      .execute();
    expect(boards.map((row) => [row.board, row.points])).toEqual([
      ['all', 100],
      ['month:2026-10', 100],
      ['week:2026-W44', 100],
    ]);
    expect((await findRankedEntry(own.db, ids.get('b')!, { board: 'month:2026-11' }))?.rank).toBe(
      3,
    );
    // (The hand-made users break invariants of the service's writes; these are the migration's.)
    const problems = await consistencyProblems(own.db);
    expect(problems.filter((problem) => /rank_counts|reached_seq/.test(problem))).toEqual([]);

    // A write after the migration takes a number after every backfilled one.
    const next = await sql<{
      seq: string;
    }>`SELECT nextval('leaderboard_reached_seq')::text AS seq`.execute(own.db);
    expect(Number(next.rows[0]!.seq)).toBe(13);
    expect((await migrator.migrateDown()).error).toBeUndefined();
    expect(await migrateToLatest(own.db)).toContain('20261123T2000_boards_rank_counts');
  });
});
