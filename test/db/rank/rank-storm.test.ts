import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRankedEntry } from '../../../db/queries/leaderboard.js';
import { writeBoards } from '../../../src/domain/boards.js';
import { consistencyProblems, fullSortRanks } from '../../helpers/consistency.js';
import { movePoints } from '../../helpers/point-moves.js';
import { reader, walkPages } from '../../helpers/reads.js';
import {
  startOtherInstance,
  startTestApp,
  type OtherInstance,
  type TestApp,
} from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * The exactness property of rank_counts: after a storm of concurrent
 * onboardings, PATCHes and point moves (ties forced, scores spread over every
 * points level, team changes, two app instances on one database), every rank
 * the API serves — /me on the global and every team
 * board, every page, onboarding responses — equals the rank from a full SQL
 * sort of the entries (ROW_NUMBER over the same order).
 */

const USERS = testDbKind === 'postgres' ? 240 : 160;
const PARALLEL = testDbKind === 'postgres' ? 24 : 8;
const TEAMS = ['Red Lions', 'BLUE Sharks', 'green hawks'];

let database: TestDatabase;
let issuer: TokenIssuer;
let apps: [TestApp, OtherInstance];

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
  apps = [
    await startTestApp({ database, issuer }),
    await startOtherInstance(database, { issuer, poolMax: 5 }),
  ];
}, 60_000);

afterAll(async () => {
  for (const app of apps ?? []) await app.close();
  await issuer?.stop();
  await database?.destroy();
});

async function inBatches<T>(items: T[], size: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

describe(`rank exactness after a concurrent storm on ${testDbKind}`, () => {
  it('serves the full-sort rank everywhere: /me, team boards, pages and onboarding', async () => {
    const tokens = await Promise.all(
      Array.from({ length: USERS }, (_, i) => issuer.sign(`storm-${i}`)),
    );
    const app = (i: number) => apps[i % 2]!;
    const statuses: number[] = [];
    // The boards the point moves credit: fixed once, so a storm across midnight credits the same ones.
    const boards = writeBoards(new Date());
    // Few distinct bodies, so points tie in large groups: 100, 125, 150, 175, 275.
    await inBatches(tokens, PARALLEL, async (token, i) => {
      const team = i % 4 === 0 ? null : TEAMS[i % TEAMS.length]!;
      const body = {
        ...(i % 2 === 0 && { handle: `storm_${i}_${Date.now().toString(36)}` }),
        ...(team && { favoriteTeam: i % 3 === 0 ? team.toUpperCase() : team }),
      };
      const onboarded = await app(i).request('POST', '/api/user/profile', { token, body });
      statuses.push(onboarded.status);
      expect(onboarded.body.data.leaderboardEntry.rank).toBeGreaterThanOrEqual(1);
      // Team changes (and a cleared team), and rivals that award points, on the other instance.
      const patches = [
        { favoriteTeam: TEAMS[(i + 1) % TEAMS.length] },
        i % 5 === 0 ? { favoriteTeam: null } : { rivalTeam: `Rival ${i % 7}` },
        i % 6 === 0 ? { favoriteTeam: TEAMS[i % TEAMS.length]!.toLowerCase() } : { name: `S${i}` },
      ];
      const userId: string = onboarded.body.data.user.id;
      let awarded = 0;
      for (const [k, patch] of patches.entries()) {
        const response = await app(i + k + 1).request('PATCH', '/api/user', { token, body: patch });
        statuses.push(response.status);
        // A third of the fans earn points from activity between their PATCHes,
        // from either instance: scores spread over [0, 2^24) (every points
        // level), small awards that sometimes cross a 256-score cut, and
        // debits (as reversals take points back) on the all-time board.
        if (i % 3 !== 2) continue;
        const move =
          k === 2
            ? { delta: -Math.floor(Math.random() * (awarded + 1)), boards: ['all'] }
            : {
                delta: Math.floor(Math.random() * (k === 0 ? 2 ** 24 : 600)),
                boards,
              };
        // The ledger holds no zero entries (a random draw can be 0).
        if (move.delta === 0) continue;
        awarded += move.delta;
        const handle = (i + k) % 2 === 0 ? database : apps[1].handle;
        await movePoints(handle, userId, { key: `storm-${i}-${k}`, ...move });
      }
    });
    expect(statuses.filter((status) => status >= 300)).toEqual([]);

    const db = database.db;
    expect(await consistencyProblems(db)).toEqual([]);
    let expected = await fullSortRanks(db);
    expect(expected.size).toBe(USERS);
    const ties = await sql<{ n: string }>`SELECT max(n)::text AS n FROM (
        SELECT count(*) AS n FROM leaderboard_entries WHERE board = 'all' GROUP BY points) t`.execute(
      db,
    );
    expect(Number(ties.rows[0]!.n)).toBeGreaterThan(USERS / 10);
    const distinct = await sql<{ n: string }>`SELECT count(DISTINCT points)::text AS n
      FROM leaderboard_entries WHERE board = 'all'`.execute(db);
    expect(Number(distinct.rows[0]!.n)).toBeGreaterThan(USERS / 4);

    // /me on the global board and on the caller's team board, over both faces and instances.
    const userIds = new Map<string, string>();
    await inBatches(tokens, PARALLEL, async (token, i) => {
      const read = reader(app(i), i % 2 === 0 ? 'rest' : 'trpc');
      const me = await read('leaderboardAroundMe', token, { radius: 2 });
      if (!me.ok) throw new Error(`me failed: ${me.status}`);
      const userId: string = me.data.entry.userId;
      userIds.set(token, userId);
      const want = expected.get(userId)!;
      expect(me.data.entry.rank).toBe(want.global);
      for (const neighbour of [...me.data.above, ...me.data.below]) {
        expect(neighbour.rank).toBe(expected.get(neighbour.userId)!.global);
      }
      if (want.teamKey !== null) {
        const onTeam = await read('leaderboardAroundMe', token, {
          radius: 1,
          team: want.teamKey.toUpperCase(),
        });
        if (!onTeam.ok) throw new Error(`team me failed: ${onTeam.status}`);
        expect(onTeam.data.entry.rank).toBe(want.team);
      }
    });

    // Every page of the global board and of every team board.
    const viewer = tokens[0]!;
    const walk = async (team?: string) =>
      (
        await walkPages(reader(apps[1], 'rest'), 'leaderboard', viewer, {
          limit: 37,
          ...(team !== undefined && { team }),
        })
      ).flatMap((page) => page.entries);
    const global = await walk();
    expect(global).toHaveLength(USERS);
    for (const entry of global) expect(entry.rank).toBe(expected.get(entry.userId)!.global);
    for (const team of TEAMS) {
      const members = await walk(team);
      expect(members.length).toBeGreaterThan(0);
      for (const entry of members) {
        expect(entry.rank).toBe(expected.get(entry.userId)!.team);
        expect(expected.get(entry.userId)!.teamKey).toBe(team.toLowerCase());
      }
    }

    // Ranks computed inside the write statement: repeat onboardings that write
    // (a new name) and first-time onboardings, one at a time, each checked
    // against a full sort right after it.
    for (let i = 0; i < 12; i += 1) {
      const token = tokens[(i * 17) % USERS]!;
      const response = await app(i).request('POST', '/api/user/profile', {
        token,
        body: { name: `Again ${i}` },
      });
      expect(response.status).toBe(200);
      expected = await fullSortRanks(db);
      expect(response.body.data.leaderboardEntry.rank).toBe(
        expected.get(userIds.get(token)!)!.global,
      );
    }
    for (let i = 0; i < 12; i += 1) {
      const token = await issuer.sign(`storm-late-${i}`);
      const response = await app(i).request('POST', '/api/user/profile', {
        token,
        body: i % 2 ? { favoriteTeam: TEAMS[0] } : {},
      });
      expect(response.status).toBe(201);
      expected = await fullSortRanks(db);
      expect(response.body.data.leaderboardEntry.rank).toBe(
        expected.get(response.body.data.user.id)!.global,
      );
    }
    // The season boards the awards landed on: every rank, whole board and team
    // (last: these direct reads leave the HTTP connections idle).
    for (const board of boards.slice(1)) {
      const onBoard = await fullSortRanks(db, board);
      expect(onBoard.size).toBeGreaterThan(0);
      for (const [userId, want] of onBoard) {
        expect((await findRankedEntry(db, userId, { board }))?.rank).toBe(want.global);
        if (want.teamKey !== null) {
          const team = await findRankedEntry(db, userId, { board, team: want.teamKey });
          expect(team?.rank).toBe(want.team);
        }
      }
    }

    expect(await consistencyProblems(db)).toEqual([]);
  }, 300_000);
});
