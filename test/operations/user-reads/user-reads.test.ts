import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { encodeLeaderboardCursor, encodeLedgerCursor } from '../../../src/domain/cursor.js';
import { FACES, READ_PATHS, reader, walkPages, type ReadProcedure } from '../../helpers/reads.js';
import { startTestApp, useTestApp } from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind } from '../../helpers/test-db.js';
import { startTokenIssuer } from '../../helpers/token-issuer.js';

const { app, database } = useTestApp();

const handle = () => `fan_${randomUUID().slice(0, 8)}`;
/** The default catalog's quests in display order: five profile quests, then a daily and a weekly one. */
const QUEST_IDS = [
  'welcome',
  'claim_handle',
  'pick_team',
  'name_rival',
  'complete_profile',
  'daily_reader',
  'matchday_regular',
];

describe.each(FACES)(`GET /api/user over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);

  it('answers the user before onboarding: empty profile, 0 points, onboardedAt null', async () => {
    const result = await read()('me', await app.token());
    expect(result).toEqual({
      ok: true,
      status: 200,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: null,
        handle: null,
        location: null,
        favoriteSport: null,
        favoriteTeam: null,
        favoritePlayer: null,
        rivalTeam: null,
        profileUrl: null,
        points: 0,
        onboardedAt: null,
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      },
    });
  });

  it('answers exactly the User the last write returned, before and after onboarding', async () => {
    const token = await app.token();
    const patched = await app.request('PATCH', '/api/user', {
      token,
      body: { name: 'Reader', handle: handle() },
    });
    expect(await read()('me', token)).toEqual({ ok: true, status: 200, data: patched.body.data });

    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: 'Arsenal' },
    });
    const me = await read()('me', token);
    expect(me).toEqual({ ok: true, status: 200, data: onboarded.body.data.user });
    expect(me.ok && me.data.points).toBe(150);
  });
});

describe.each(FACES)(`GET /api/user/points over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);

  it('is an empty page before onboarding', async () => {
    expect(await read()('pointsHistory', await app.token())).toEqual({
      ok: true,
      status: 200,
      data: { entries: [], nextCursor: null },
    });
  });

  it('pages the ledger newest first, ending exactly at a page boundary', async () => {
    const token = await app.token();
    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { handle: handle(), favoriteTeam: 'Ajax' },
    });
    const all = onboarded.body.data.pointsHistory.entries;
    expect(all).toHaveLength(3);

    const onePage = await read()('pointsHistory', token);
    expect(onePage).toEqual({ ok: true, status: 200, data: { entries: all, nextCursor: null } });

    const exact = await walkPages(read(), 'pointsHistory', token, { limit: 3 });
    expect(exact).toEqual([{ entries: all, nextCursor: null }]);

    const small = await walkPages(read(), 'pointsHistory', token, { limit: 2 });
    expect(small.map((page) => page.entries)).toEqual([all.slice(0, 2), all.slice(2)]);
    expect(small[1]!.nextCursor).toBeNull();

    // A later award shows first.
    await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'Feyenoord' } });
    const after = await read()('pointsHistory', token, { limit: 1 });
    expect(after.ok && after.data.entries[0]).toMatchObject({
      questId: 'name_rival',
      delta: 25,
      balanceAfter: 175,
    });
  });

  it('shows only the caller’s entries, whatever cursor they send', async () => {
    const other = await app.token();
    await app.request('POST', '/api/user/profile', { token: other, body: {} });
    const token = await app.token();
    await app.request('POST', '/api/user/profile', { token, body: {} });
    const mine = await read()('pointsHistory', token, {
      cursor: encodeLedgerCursor('9223372036854775807'),
    });
    expect(mine.ok && mine.data.entries).toHaveLength(1);
    expect(mine.ok && mine.data.entries[0].questId).toBe('welcome');
  });

  it.each([
    ['garbage', 'not a cursor!'],
    [
      'a leaderboard cursor',
      encodeLeaderboardCursor({
        board: 'all',
        position: { points: 1, seq: '1', userId: randomUUID() },
        rank: 1,
      }),
    ],
    ['an id beyond bigint', encodeLedgerCursor('9223372036854775808')],
    ['a non-canonical encoding', `${encodeLedgerCursor('5')}=`],
  ])('refuses %s as the cursor with a 400', async (_, cursor) => {
    expect(await read()('pointsHistory', await app.token(), { cursor })).toMatchObject({
      ok: false,
      status: 400,
      code: 'VALIDATION_FAILED',
      issues: [expect.objectContaining({ path: 'cursor' })],
    });
  });

  it.each([0, 101])('refuses limit %s with a 400', async (limit) => {
    expect(await read()('pointsHistory', await app.token(), { limit })).toMatchObject({
      ok: false,
      status: 400,
      issues: [expect.objectContaining({ path: 'limit' })],
    });
  });
});

describe.each(FACES)(`GET /api/user/quests over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);

  it('before onboarding: progress from the profile, nothing completed', async () => {
    const token = await app.token();
    await app.request('PATCH', '/api/user', {
      token,
      body: { handle: handle(), favoriteTeam: 'Porto', location: 'Porto' },
    });
    const result = await read()('quests', token);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const quests = result.data.quests as Array<Record<string, unknown>>;
    expect(quests.map((quest) => quest.id)).toEqual(QUEST_IDS);
    expect(quests.every((q) => q.status === 'in_progress' && q.completedAt === null)).toBe(true);
    expect(Object.fromEntries(quests.map((q) => [q.id, q.progress]))).toEqual({
      welcome: 0,
      claim_handle: 1,
      pick_team: 1,
      name_rival: 0,
      complete_profile: 3,
      daily_reader: 0,
      matchday_regular: 0,
    });
    expect(
      result.data.streaks.map((s: { id: string; current: number }) => [s.id, s.current]),
    ).toEqual([['matchday_streak', 0]]);
  });

  it('after onboarding: the same quests onboarding reported, and they follow later writes', async () => {
    const token = await app.token();
    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { handle: handle() },
    });
    const listed = await read()('quests', token);
    expect(listed).toMatchObject({
      ok: true,
      status: 200,
      data: { quests: onboarded.body.data.questSync.quests },
    });
    await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'Benfica' } });
    const after = await read()('quests', token);
    expect(after.ok && after.data.quests[3]).toMatchObject({
      id: 'name_rival',
      status: 'completed',
      completedAt: expect.stringMatching(/Z$/),
    });
  });
});

const ALL_READS = Object.keys(READ_PATHS) as ReadProcedure[];

describe('read endpoints — errors in the envelope', () => {
  it.each(ALL_READS)('%s: 401 without a valid token, on both faces', async (procedure) => {
    const response = await app.request('GET', READ_PATHS[procedure]);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(response.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
    expect(await reader(app, 'trpc')(procedure, 'not-a-jwt')).toMatchObject({
      ok: false,
      status: 401,
      code: 'UNAUTHENTICATED',
    });
  });

  it('429 with Retry-After once the per-user limit is spent', async () => {
    const own = await createTestDatabase();
    const limited = await startTestApp({ database: own, env: { RATE_LIMIT_PER_USER: '2' } });
    try {
      const token = await limited.token();
      for (const procedure of ['me', 'quests'] as const) {
        expect((await limited.request('GET', READ_PATHS[procedure], { token })).status).toBe(200);
      }
      for (const procedure of ALL_READS) {
        const response = await limited.request('GET', READ_PATHS[procedure], { token });
        expect(response.status).toBe(429);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(response.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
      }
      expect(await reader(limited, 'trpc')('leaderboard', token)).toMatchObject({
        status: 429,
        code: 'RATE_LIMITED',
      });
    } finally {
      await limited.close();
      await own.destroy();
    }
  });

  it('503 while the identity provider’s keys cannot be fetched', async () => {
    const issuer = await startTokenIssuer();
    const own = await createTestDatabase();
    const flaky = await startTestApp({ database: own, issuer });
    try {
      const token = await flaky.token();
      issuer.setAvailable(false);
      for (const procedure of ALL_READS) {
        const response = await flaky.request('GET', READ_PATHS[procedure], { token });
        expect(response.status).toBe(503);
        expect(response.body).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    } finally {
      issuer.setAvailable(true);
      await flaky.close();
      await issuer.stop();
      await own.destroy();
    }
  });

  it('500 without SQL or internals when a query fails, on both faces', async () => {
    const own = await createTestDatabase();
    const broken = await startTestApp({ database: own });
    try {
      const token = await broken.token();
      // A schema the code does not expect: every leaderboard read fails inside PostgreSQL.
      await sql`ALTER TABLE leaderboard_entries RENAME COLUMN reached_seq TO reached`.execute(
        own.db,
      );
      const response = await broken.request('GET', '/api/leaderboard', { token });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({
        success: false,
        error: { code: 'INTERNAL', message: 'Internal server error' },
      });
      expect(response.text).not.toMatch(/reached|select|leaderboard_entries/i);
      expect(await reader(broken, 'trpc')('leaderboardAroundMe', token)).toMatchObject({
        status: 500,
        code: 'INTERNAL',
        message: 'Internal server error',
      });
    } finally {
      await broken.close();
      await own.destroy();
    }
  });
});
