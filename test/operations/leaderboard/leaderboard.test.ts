import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeLedgerCursor } from '../../../src/domain/cursor.js';
import {
  FACES,
  expectedOrder,
  reader,
  seedEntries,
  walkPages,
  type SeededUser,
} from '../../helpers/reads.js';
import { startOtherInstance, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { testDbKind } from '../../helpers/test-db.js';
import { writer } from '../../helpers/writes.js';

/** A user with no leaderboard entry, to read with. */
let viewer: string;

const { app, database } = useTestApp();

beforeAll(async () => {
  viewer = await app.token();
});

const uniqueTeam = (name: string) => `${name} ${randomUUID().slice(0, 8)}`;
const tokenOf = (user: SeededUser) => app.issuer.sign(user.subject);

describe.each(FACES)(`GET /api/leaderboard over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);

  it('answers an empty board with no entries and a null cursor', async () => {
    const result = await read()('leaderboard', viewer, { team: uniqueTeam('Nobody') });
    expect(result).toEqual({
      ok: true,
      status: 200,
      data: {
        period: 'all',
        season: null,
        startsAt: null,
        nextResetAt: null,
        entries: [],
        nextCursor: null,
      },
    });
  });

  it('answers a board that fits one page with every entry, ranked, and no cursor', async () => {
    const team = uniqueTeam('One Page');
    const users = await seedEntries(app.db, app.issuer.issuer, [
      { points: 10, team, handle: `p_${randomUUID().slice(0, 8)}` },
      { points: 30, team },
      { points: 20, team },
    ]);
    const result = await read()('leaderboard', viewer, { team });
    expect(result.ok && result.data).toEqual({
      period: 'all',
      season: null,
      startsAt: null,
      nextResetAt: null,
      entries: [
        {
          userId: users[1]!.userId,
          handle: null,
          name: null,
          profileUrl: null,
          points: 30,
          rank: 1,
        },
        {
          userId: users[2]!.userId,
          handle: null,
          name: null,
          profileUrl: null,
          points: 20,
          rank: 2,
        },
        expect.objectContaining({ userId: users[0]!.userId, points: 10, rank: 3 }),
      ],
      nextCursor: null,
    });
  });

  it('ends exactly at a page boundary without an empty last page', async () => {
    const team = uniqueTeam('Boundary');
    await seedEntries(app.db, app.issuer.issuer, [
      { points: 4, team },
      { points: 3, team },
      { points: 2, team },
      { points: 1, team },
    ]);
    const pages = await walkPages(read(), 'leaderboard', viewer, { team, limit: 2 });
    expect(pages.map((page) => page.entries.map((entry) => entry.points))).toEqual([
      [4, 3],
      [2, 1],
    ]);
    expect(pages[0]!.nextCursor).toEqual(expect.any(String));
    expect(pages[1]!.nextCursor).toBeNull();
  });

  it('splits ties (same points, same instant) across pages by user id, none skipped or repeated', async () => {
    const team = uniqueTeam('Ties');
    await seedEntries(app.db, app.issuer.issuer, [
      { points: 50, micros: 1, team },
      ...Array.from({ length: 5 }, () => ({ points: 40, micros: 7, team })),
      { points: 40, micros: 3, team },
      { points: 10, team },
    ]);
    const expected = await expectedOrder(app.db, team);
    const pages = await walkPages(read(), 'leaderboard', viewer, { team, limit: 3 });
    expect(pages.map((page) => page.entries.length)).toEqual([3, 3, 2]);
    const walked = pages.flatMap((page) => page.entries);
    expect(walked.map((entry) => entry.userId)).toEqual(expected.map((entry) => entry.userId));
    expect(walked.map((entry) => entry.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('walks the whole board in the rank order, with ranks matching an independent sort', async () => {
    await seedEntries(
      app.db,
      app.issuer.issuer,
      Array.from({ length: 12 }, (_, i) => ({ points: (i % 3) * 10, micros: i % 2 })),
    );
    const expected = await expectedOrder(app.db);
    const pages = await walkPages(read(), 'leaderboard', viewer, { limit: 5 });
    const walked = pages.flatMap((page) => page.entries);
    expect(walked.map((entry) => [entry.userId, entry.rank])).toEqual(
      expected.map((entry, index) => [entry.userId, index + 1]),
    );
  });

  it('uses limit 20 by default', async () => {
    const team = uniqueTeam('Default');
    await seedEntries(
      app.db,
      app.issuer.issuer,
      Array.from({ length: 21 }, (_, i) => ({ points: i, team })),
    );
    const result = await read()('leaderboard', viewer, { team });
    expect(result.ok && result.data.entries).toHaveLength(20);
    expect(result.ok && result.data.nextCursor).toEqual(expect.any(String));
  });

  it('filters by team ignoring case and surrounding space, with ranks within the team', async () => {
    const team = uniqueTeam('Real Madrid');
    await seedEntries(app.db, app.issuer.issuer, [{ points: 1_000_000 }]);
    const fans = await seedEntries(app.db, app.issuer.issuer, [
      { points: 5, team },
      { points: 7, team: team.toUpperCase() },
    ]);
    const result = await read()('leaderboard', viewer, { team: `  ${team.toLowerCase()} ` });
    expect(result.ok && result.data.entries.map((e: any) => [e.userId, e.rank])).toEqual([
      [fans[1]!.userId, 1],
      [fans[0]!.userId, 2],
    ]);
  });

  it('matches a team across Unicode normalisation and non-ASCII letter case', async () => {
    const suffix = randomUUID().slice(0, 8);
    const [fan] = await seedEntries(app.db, app.issuer.issuer, [
      { points: 3, team: `Atlético ${suffix}` },
    ]);
    // Decomposed (E + combining acute) and upper case: NFC then lower() make it the same team.
    const result = await read()('leaderboard', viewer, {
      team: `ATLE\u0301TICO ${suffix.toUpperCase()}`,
    });
    expect(result.ok && result.data.entries.map((e: any) => [e.userId, e.rank])).toEqual([
      [fan!.userId, 1],
    ]);
  });

  it('puts fans of one team on one board whatever the width or case they typed (NFKC, case fold)', async () => {
    const suffix = randomUUID().slice(0, 8);
    const fullwidth = await app.token();
    const shouting = await app.token();
    for (const [token, favoriteTeam] of [
      [fullwidth, `Ａｒｓｅｎａｌ ${suffix}`],
      [shouting, `ARSENAL ${suffix.toUpperCase()}`],
    ] as const) {
      const onboarded = await app.request('POST', '/api/user/profile', {
        token,
        body: { favoriteTeam },
      });
      expect(onboarded.status).toBe(201);
    }
    const result = await read()('leaderboard', viewer, { team: `arsenal ${suffix}` });
    expect(result.ok && result.data.entries.map((e: any) => e.rank)).toEqual([1, 2]);
  });

  it.each([
    ['not base64url', '%%%'],
    ['base64url of text that is not JSON', Buffer.from('hello').toString('base64url')],
    ['a JSON keyset of the wrong shape', Buffer.from('["lb",1]').toString('base64url')],
    [
      'an impossible date',
      Buffer.from(
        JSON.stringify(['lb', 'all', 1, '2026-02-30T00:00:00.000000Z', randomUUID(), 1]),
      ).toString('base64url'),
    ],
    ['a points-history cursor', encodeLedgerCursor('5')],
    ['a cursor longer than 512 characters', 'A'.repeat(513)],
  ])('refuses %s as the cursor with a 400', async (_, cursor) => {
    const result = await read()('leaderboard', viewer, { cursor });
    expect(result).toMatchObject({
      ok: false,
      status: 400,
      code: 'VALIDATION_FAILED',
      issues: [expect.objectContaining({ path: 'cursor' })],
    });
  });

  it.each([0, 101, -1, 2.5])('refuses limit %s with a 400 naming limit', async (limit) => {
    const result = await read()('leaderboard', viewer, { limit });
    expect(result).toMatchObject({
      ok: false,
      status: 400,
      code: 'VALIDATION_FAILED',
      issues: [expect.objectContaining({ path: 'limit' })],
    });
  });

  it('refuses an empty team and an unknown parameter', async () => {
    expect(await read()('leaderboard', viewer, { team: '   ' })).toMatchObject({
      status: 400,
      issues: [expect.objectContaining({ path: 'team' })],
    });
    expect(await read()('leaderboard', viewer, { tem: 'x' })).toMatchObject({
      status: 400,
      issues: [expect.objectContaining({ path: 'tem' })],
    });
  });
});

describe('GET /api/leaderboard — REST-only parameter forms', () => {
  it('treats an empty parameter as absent (limit= is the default)', async () => {
    const response = await app.request('GET', '/api/leaderboard?limit=&team=', { token: viewer });
    expect(response.status).toBe(200);
    expect(response.body.data.entries.length).toBeLessThanOrEqual(20);
  });

  it.each(['abc', '1e3', '5abc'])('refuses limit=%s with a 400 in the envelope', async (limit) => {
    const response = await app.request('GET', `/api/leaderboard?limit=${limit}`, {
      token: viewer,
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_FAILED', issues: [expect.objectContaining({ path: 'limit' })] },
    });
  });
});

describe.each(FACES)(`GET /api/leaderboard/me over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);
  let team: string;
  let users: SeededUser[];

  beforeAll(async () => {
    team = uniqueTeam('Around');
    users = await seedEntries(
      app.db,
      app.issuer.issuer,
      Array.from({ length: 8 }, (_, i) => ({ points: 100 - i * 10, team })),
    );
  });

  const ranks = (entries: Array<{ userId: string; rank: number }>) =>
    entries.map((entry) => [entry.userId, entry.rank]);

  it('at rank 1: nothing above, `radius` below', async () => {
    const result = await read()('leaderboardAroundMe', await tokenOf(users[0]!), {
      team,
      radius: 3,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data.entry).toMatchObject({ userId: users[0]!.userId, rank: 1, points: 100 });
    expect(result.data.above).toEqual([]);
    expect(ranks(result.data.below)).toEqual(
      users.slice(1, 4).map((user, i) => [user.userId, i + 2]),
    );
  });

  it('at the last rank: `radius` above in rank order, nothing below', async () => {
    const result = await read()('leaderboardAroundMe', await tokenOf(users[7]!), {
      team,
      radius: 2,
    });
    expect(result.ok && result.data.entry).toMatchObject({ userId: users[7]!.userId, rank: 8 });
    expect(result.ok && ranks(result.data.above)).toEqual([
      [users[5]!.userId, 6],
      [users[6]!.userId, 7],
    ]);
    expect(result.ok && result.data.below).toEqual([]);
  });

  it('in the middle: both sides, 5 by default, fewer where the board ends', async () => {
    const result = await read()('leaderboardAroundMe', await tokenOf(users[3]!), { team });
    expect(result.ok && ranks(result.data.above)).toEqual(
      users.slice(0, 3).map((user, i) => [user.userId, i + 1]),
    );
    expect(result.ok && ranks(result.data.below)).toEqual(
      users.slice(4, 8).map((user, i) => [user.userId, i + 5]),
    );
  });

  it('radius 0 gives the entry alone; the global board ranks the same user lower', async () => {
    const token = await tokenOf(users[0]!);
    const inTeam = await read()('leaderboardAroundMe', token, { team, radius: 0 });
    expect(inTeam.ok && inTeam.data).toMatchObject({ entry: { rank: 1 }, above: [], below: [] });
    await seedEntries(app.db, app.issuer.issuer, [{ points: 100_000 }]);
    const global = await read()('leaderboardAroundMe', token, { radius: 0 });
    expect(global.ok && global.data.entry.rank).toBeGreaterThan(1);
  });

  it('404 when the caller is not onboarded, or not a fan of the team', async () => {
    expect(await read()('leaderboardAroundMe', viewer)).toMatchObject({
      ok: false,
      status: 404,
      code: 'NOT_FOUND',
    });
    expect(
      await read()('leaderboardAroundMe', await tokenOf(users[0]!), {
        team: uniqueTeam('Other'),
      }),
    ).toMatchObject({ ok: false, status: 404, code: 'NOT_FOUND' });
  });

  it.each([-1, 26, 1.5])('refuses radius %s with a 400 naming radius', async (radius) => {
    expect(await read()('leaderboardAroundMe', viewer, { radius })).toMatchObject({
      ok: false,
      status: 400,
      code: 'VALIDATION_FAILED',
      issues: [expect.objectContaining({ path: 'radius' })],
    });
  });
});

describe('fan boards follow favoriteTeam through the real write path', () => {
  it('moves a user from one team board to another when PATCH changes favoriteTeam', async () => {
    const lions = uniqueTeam('Lions');
    const tigers = uniqueTeam('Tigers');
    const token = await app.token();
    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: lions },
    });
    expect(onboarded.status).toBe(201);
    const userId = onboarded.body.data.user.id as string;
    const rest = reader(app, 'rest');
    const trpc = reader(app, 'trpc');
    const board = async (team: string) => {
      const result = await rest('leaderboard', token, { team: team.toUpperCase() });
      return result.ok ? result.data.entries.map((entry: any) => entry.userId) : result;
    };

    expect(await board(lions)).toEqual([userId]);
    expect(await board(tigers)).toEqual([]);

    const patched = await app.request('PATCH', '/api/user', {
      token,
      body: { favoriteTeam: tigers },
    });
    expect(patched.status).toBe(200);
    expect(await board(lions)).toEqual([]);
    expect(await board(tigers)).toEqual([userId]);
    expect(await trpc('leaderboardAroundMe', token, { team: tigers })).toMatchObject({
      ok: true,
      data: { entry: { userId, rank: 1 } },
    });
    expect(await trpc('leaderboardAroundMe', token, { team: lions })).toMatchObject({
      ok: false,
      status: 404,
    });
  });
});

describe('a write that keeps the points keeps the place among equals', () => {
  it('team changes, sequential and concurrent on two instances, keep the order users reached their score in', async () => {
    const teams = [uniqueTeam('Reds'), uniqueTeam('Blues'), uniqueTeam('Greens')];
    const users: Array<{ token: string; userId: string; points: number; arrival: number }> = [];
    // Users reach their score one after another, so the order they reached it
    // in is known here, without reading anything the service stored: two tie
    // groups, 150 (handle and team) and 125 (team only).
    for (let arrival = 0; arrival < 9; arrival += 1) {
      const token = await app.token();
      const body = {
        favoriteTeam: teams[arrival % 3],
        ...(arrival % 3 !== 1 && { handle: `tie_${arrival}_${randomUUID().slice(0, 8)}` }),
      };
      const onboarded = await app.request('POST', '/api/user/profile', { token, body });
      expect(onboarded.status).toBe(201);
      const { id: userId, points } = onboarded.body.data.user;
      users.push({ token, userId, points, arrival });
    }
    expect(new Set(users.map((user) => user.points))).toEqual(new Set([125, 150]));
    const team = new Map(users.map((user) => [user.userId, teams[user.arrival % 3]!]));
    const byArrival = (a: (typeof users)[number], b: (typeof users)[number]) =>
      b.points - a.points || a.arrival - b.arrival;
    const expected = [...users].sort(byArrival).map((user) => user.userId);

    // Reads here must count writes made on the other instance at once: without the
    // shared first page, which shows them within its bound (first-page-cache.test.ts).
    const other = await startOtherInstance(database, {
      issuer: app.issuer,
      env: { LEADERBOARD_FIRST_PAGE_CACHE_MS: '0' },
    });
    try {
      const check = async () => {
        const rest = reader(app, 'rest');
        const trpc = reader(other, 'trpc');
        // The whole board holds other tests' users too: compare the order of these.
        const mine = new Set(expected);
        const board = (await walkPages(rest, 'leaderboard', viewer, { limit: 100 }))
          .flatMap((page) => page.entries)
          .filter((entry) => mine.has(entry.userId));
        expect(board.map((entry) => entry.userId)).toEqual(expected);
        for (const [i, fans] of teams
          .map((name) => expected.filter((id) => team.get(id) === name))
          .entries()) {
          const teamBoard = await trpc('leaderboard', viewer, { team: teams[i]!, limit: 100 });
          if (!teamBoard.ok) throw new Error(`team board: ${teamBoard.code}`);
          expect(teamBoard.data.entries.map((entry: any) => [entry.userId, entry.rank])).toEqual(
            fans.map((id, rank) => [id, rank + 1]),
          );
        }
        for (const user of users) {
          const me = await rest('leaderboardAroundMe', user.token, { radius: 0 });
          if (!me.ok) throw new Error(`me: ${me.code}`);
          expect(me.data.entry.rank).toBe(
            board.find((entry) => entry.userId === user.userId)!.rank,
          );
        }
      };
      await check();

      // Last arrival first: a change that took a new place would reverse each tie group.
      for (const user of [...users].reverse()) {
        const moved = await writer(app, 'trpc')('updateUser', user.token, {
          favoriteTeam: teams[(user.arrival + 1) % 3],
        });
        expect(moved).toMatchObject({ ok: true, data: { points: user.points } });
        team.set(user.userId, teams[(user.arrival + 1) % 3]!);
      }
      await check();

      // Concurrently, through both instances and faces: a team cleared and set
      // again in another letter case, or moved on once more.
      await Promise.all(
        users.map(async (user) => {
          const target = user.arrival % 2 === 0 ? app : other;
          const write = writer(target, user.arrival % 2 === 0 ? 'rest' : 'trpc');
          const next = teams[(user.arrival + 2) % 3]!;
          if (user.arrival % 3 === 0) {
            expect(await write('updateUser', user.token, { favoriteTeam: null })).toMatchObject({
              ok: true,
            });
          }
          const moved = await write('updateUser', user.token, { favoriteTeam: next.toUpperCase() });
          expect(moved).toMatchObject({ ok: true, data: { points: user.points } });
          team.set(user.userId, next);
        }),
      );
      await check();
    } finally {
      await other.close();
    }
  });
});
