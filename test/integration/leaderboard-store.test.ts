import { randomUUID } from 'node:crypto';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRankedEntry, leaderboardPage, neighbours } from '../../db/queries/leaderboard.js';
import { migrateToLatest } from '../../db/migrate.js';
import { migrations } from '../../db/migrations/index.js';
import type { Database } from '../../db/schema.js';
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
    // Points, reached_at offset (µs) and team. Ties on points broken by
    // reached_at (microseconds apart), ties on both broken by user id.
    const base = '2026-11-23T10:00:00.000000Z';
    const specs: Array<{ points: number; micros: number; team: string | null }> = [
      { points: 300, micros: 5, team: 'a' },
      { points: 200, micros: 1, team: 'b' },
      { points: 200, micros: 2, team: 'a' },
      { points: 200, micros: 2, team: 'a' },
      { points: 200, micros: 2, team: null },
      { points: 100, micros: 0, team: 'b' },
      { points: 0, micros: 0, team: 'a' },
    ];
    const rows = specs.map((spec) => ({ ...spec, userId: randomUUID() }));
    // Expected: points desc, micros asc, userId asc.
    const sorted = [...rows].sort(
      (x, y) =>
        y.points - x.points ||
        x.micros - y.micros ||
        (x.userId < y.userId ? -1 : x.userId > y.userId ? 1 : 0),
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
          userId: row.userId,
          points: row.points,
          reachedAt: sql<Date>`${base}::timestamptz + ${row.micros} * interval '1 microsecond'`,
          updatedAt: new Date(),
          teamKey: row.team,
        })
        .execute();
    }
  });

  afterAll(async () => {
    await own?.destroy();
  });

  it('ranks by points, then reached_at to the microsecond, then user id', async () => {
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
