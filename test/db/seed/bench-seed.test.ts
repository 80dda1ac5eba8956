import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeeded, seedUsers } from '../../../bench/seed-data.js';
import { findRankedEntry } from '../../../db/queries/leaderboard.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';

/**
 * bench:seed's data (bench/seed-data.ts) keeps every invariant the service
 * relies on: a service started on it serves the seeded users correctly.
 */

const USERS = 300;
let database: TestDatabase;
let app: TestApp;
let keysBefore: string[];
let timings: Record<string, number>;

/** Every index and constraint of the schema, as the catalog defines it. */
async function schemaKeys(db: TestDatabase['db']): Promise<string[]> {
  const { rows } = await sql<{ key: string }>`
    SELECT tablename || ': ' || indexdef AS key FROM pg_indexes
    WHERE schemaname = current_schema()
    UNION ALL
    SELECT conrelid::regclass::text || ': ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
    ORDER BY 1`.execute(db);
  return rows.map((row) => row.key);
}

beforeAll(async () => {
  database = await createTestDatabase();
  app = await startTestApp({ database });
  keysBefore = await schemaKeys(database.db);
  timings = await seedUsers(database.db, { users: USERS, issuer: app.issuer.issuer });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await database?.destroy();
});

describe(`bench:seed data on ${testDbKind}`, () => {
  it('is consistent, ranks equal a full sort, and the service serves the seeded users', async () => {
    const db = database.db;
    expect(await isSeeded(db, app.issuer.issuer)).toBe(true);
    // On empty tables the seed drops keys, indexes and foreign keys and re-creates them as they
    // were: once around the rows, once around the rank-count rebuild.
    expect(Object.keys(timings).filter((step) => step.startsWith('drop '))).toHaveLength(2);
    expect(timings).toHaveProperty(['foreign key profiles_user_id_fkey']);
    expect(timings).toHaveProperty(['constraint rank_counts_pkey']);
    expect(keysBefore.length).toBeGreaterThan(10);
    expect(await schemaKeys(db)).toEqual(keysBefore);
    expect(await consistencyProblems(db)).toEqual([]);
    const { rows } = await sql<{ userId: string; rank: string }>`
      SELECT user_id, ROW_NUMBER() OVER (ORDER BY points DESC, reached_seq, user_id)::text AS rank
      FROM leaderboard_entries WHERE board = 'all'`.execute(db);
    expect(rows).toHaveLength(USERS);
    for (const row of rows.filter((_, i) => i % 7 === 0)) {
      expect((await findRankedEntry(db, row.userId))?.rank).toBe(Number(row.rank));
    }

    // seed-21 filled all eight fields: 100 + 25 + 25 + 25 + 100.
    const token = await app.token('seed-21');
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body).toMatchObject({ data: { handle: 'seed_21', points: 275 } });
    const repeat = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(repeat.status).toBe(200);
    expect(repeat.body.data.questSync.pointsAwarded).toBe(0);
    const want = rows.find((row) => row.userId === me.body.data.id)!;
    expect(repeat.body.data.leaderboardEntry.rank).toBe(Number(want.rank));
    // seed-1 has no rival yet: naming one awards it once, as for any user.
    const other = await app.token('seed-1');
    const patched = await app.request('PATCH', '/api/user', {
      token: other,
      body: { rivalTeam: 'Rivals FC' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.points).toBe(175);
    expect(await consistencyProblems(db)).toEqual([]);
  }, 120_000);
});

describe(`bench:seed data with --score-spread on ${testDbKind}`, () => {
  const SPREAD = 1_000_000;
  let spreadDatabase: TestDatabase;
  let spreadApp: TestApp;

  beforeAll(async () => {
    spreadDatabase = await createTestDatabase();
    spreadApp = await startTestApp({ database: spreadDatabase });
    await seedUsers(spreadDatabase.db, {
      users: USERS,
      issuer: spreadApp.issuer.issuer,
      scoreSpread: SPREAD,
    });
  }, 120_000);
  afterAll(async () => {
    await spreadApp?.close();
    await spreadDatabase?.destroy();
  });

  it('spreads scores over [0, K) with the ledger, counts and ranks still exact', async () => {
    const db = spreadDatabase.db;
    expect(await consistencyProblems(db)).toEqual([]);
    const { rows } = await sql<{ userId: string; points: number; rank: string }>`
      SELECT user_id, points,
             ROW_NUMBER() OVER (ORDER BY points DESC, reached_seq, user_id)::text AS rank
      FROM leaderboard_entries WHERE board = 'all'`.execute(db);
    expect(rows).toHaveLength(USERS);
    for (const row of rows) {
      expect(row.points).toBeGreaterThanOrEqual(0);
      expect(row.points).toBeLessThan(SPREAD);
    }
    // Distinct users on distinct scores, over the whole range.
    expect(new Set(rows.map((row) => row.points)).size).toBe(USERS);
    expect(Math.max(...rows.map((row) => row.points))).toBeGreaterThan(SPREAD * 0.9);
    expect(Math.min(...rows.map((row) => row.points))).toBeLessThan(SPREAD * 0.1);
    for (const row of rows.filter((_, i) => i % 7 === 0)) {
      expect((await findRankedEntry(db, row.userId))?.rank).toBe(Number(row.rank));
    }

    // The service serves them: the balance is the entry's, the history ends
    // with the adjustment, and a quest award moves them on the board.
    const token = await spreadApp.token('seed-1');
    const me = await spreadApp.request('GET', '/api/user', { token });
    const seeded = rows.find((row) => row.userId === me.body.data.id)!;
    expect(me.body.data.points).toBe(seeded.points);
    const history = await spreadApp.request('GET', '/api/user/points', { token });
    expect(history.body.data.entries[0]).toMatchObject({
      reason: 'adjustment',
      balanceAfter: seeded.points,
    });
    const patched = await spreadApp.request('PATCH', '/api/user', {
      token,
      body: { rivalTeam: 'Rivals FC' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.points).toBe(seeded.points + 25);
    const ranked = await spreadApp.request('GET', '/api/leaderboard/me', { token });
    const { rows: after } = await sql<{ rank: string }>`
      SELECT rank::text FROM (
        SELECT user_id, ROW_NUMBER() OVER (ORDER BY points DESC, reached_seq, user_id) AS rank
        FROM leaderboard_entries WHERE board = 'all') r
      WHERE user_id = ${me.body.data.id}`.execute(db);
    expect(ranked.body.data.entry.rank).toBe(Number(after[0]!.rank));
    expect(await consistencyProblems(db)).toEqual([]);
  }, 120_000);
});
