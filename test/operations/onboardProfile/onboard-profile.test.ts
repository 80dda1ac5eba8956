import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../helpers/test-db.js';
import { startTestApp, useTestApp } from '../../helpers/test-app.js';

const { app, database } = useTestApp();

const onboard = (token: string, body: unknown) =>
  app.request('POST', '/api/user/profile', { token, body });
const patch = (token: string, body: unknown) => app.request('PATCH', '/api/user', { token, body });
const uniqueHandle = (prefix: string) =>
  `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`.slice(0, 30);

/** The invariant the ledger promises: the balance is the sum of the user's entries. */
async function ledgerState(userId: string) {
  const ledger = await app.db
    .selectFrom('pointsLedger')
    .select(['delta', 'idempotencyKey'])
    .where('userId', '=', userId)
    .execute();
  const entry = await app.db
    .selectFrom('leaderboardEntries')
    .select('points')
    .where('board', '=', 'all')
    .where('userId', '=', userId)
    .executeTakeFirst();
  return {
    sum: ledger.reduce((total, row) => total + row.delta, 0),
    keys: ledger.map((row) => row.idempotencyKey).sort(),
    balance: entry?.points,
  };
}

describe('POST /api/user/profile — happy', () => {
  it('onboards with 201, awards quests through the ledger and ranks the user', async () => {
    const token = await app.token();
    const handle = uniqueHandle('Fan');
    const response = await onboard(token, {
      name: 'First Fan',
      handle: `@${handle}`,
      favoriteTeam: 'Arsenal',
    });
    expect(response.status).toBe(201);
    const data = response.body.data;
    expect(response.body.success).toBe(true);
    expect(Object.keys(data).sort()).toEqual(
      ['leaderboardEntry', 'pointsHistory', 'questSync', 'updatedProfile', 'user'].sort(),
    );
    expect(data.user).toMatchObject({
      name: 'First Fan',
      handle,
      favoriteTeam: 'Arsenal',
      points: 150,
    });
    expect(data.user.onboardedAt).toMatch(/Z$/);
    expect(data.updatedProfile).toEqual({
      name: 'First Fan',
      handle,
      location: null,
      favoriteSport: null,
      favoriteTeam: 'Arsenal',
      favoritePlayer: null,
      rivalTeam: null,
      profileUrl: null,
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(data.questSync.pointsAwarded).toBe(150);
    expect(data.questSync.completed.map((q: { id: string }) => q.id).sort()).toEqual(
      ['claim_handle', 'pick_team', 'welcome'].sort(),
    );
    expect(data.questSync.quests.map((q: { id: string }) => q.id)).toEqual([
      'welcome',
      'claim_handle',
      'pick_team',
      'name_rival',
      'complete_profile',
      // The default catalog's repeating quests, in the period holding now.
      'daily_reader',
      'matchday_regular',
    ]);
    expect(
      data.questSync.quests.find((q: { id: string }) => q.id === 'complete_profile'),
    ).toMatchObject({
      progress: 3,
      target: 8,
      status: 'in_progress',
      completedAt: null,
    });
    expect(data.pointsHistory.balance).toBe(150);
    expect(data.pointsHistory.entries).toHaveLength(3);
    // newest first: balanceAfter falls as we go back in time
    const after = data.pointsHistory.entries.map((e: { balanceAfter: number }) => e.balanceAfter);
    expect(after).toEqual([...after].sort((a, b) => b - a));
    expect(after[0]).toBe(150);
    expect(data.pointsHistory.entries[0]).toEqual({
      id: expect.any(String),
      delta: expect.any(Number),
      reason: 'quest_completed',
      questId: expect.any(String),
      source: { kind: 'quest', questId: expect.any(String), period: null, tier: 1 },
      balanceAfter: 150,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(data.leaderboardEntry).toEqual({
      userId: data.user.id,
      handle,
      name: 'First Fan',
      profileUrl: null,
      points: 150,
      rank: expect.any(Number),
    });
    expect(data.leaderboardEntry.rank).toBeGreaterThanOrEqual(1);
    expect(await ledgerState(data.user.id)).toEqual({
      sum: 150,
      balance: 150,
      keys: ['quest:claim_handle', 'quest:pick_team', 'quest:welcome'],
    });
  });

  it('is idempotent: 200 on repeat, new values applied, nothing awarded twice', async () => {
    const token = await app.token();
    const first = await onboard(token, { name: 'Repeat' });
    expect(first.status).toBe(201);
    const second = await onboard(token, { name: 'Repeat Again', location: 'Leeds' });
    expect(second.status).toBe(200);
    expect(second.body.data.user).toMatchObject({
      name: 'Repeat Again',
      location: 'Leeds',
      points: 100,
    });
    expect(second.body.data.user.onboardedAt).toBe(first.body.data.user.onboardedAt);
    expect(second.body.data.questSync.pointsAwarded).toBe(0);
    expect(second.body.data.questSync.completed).toEqual([]);
    expect(second.body.data.pointsHistory.entries).toHaveLength(1);
    const third = await onboard(token, {});
    expect(third.status).toBe(200);
    expect(await ledgerState(first.body.data.user.id)).toMatchObject({ sum: 100, balance: 100 });
  });

  it('awards nothing before onboarding, then everything already earned', async () => {
    const token = await app.token();
    const before = await patch(token, {
      handle: uniqueHandle('early'),
      favoriteTeam: 'Everton',
      rivalTeam: 'Liverpool',
    });
    expect(before.body.data.points).toBe(0);
    expect(await ledgerState(before.body.data.id)).toEqual({
      sum: 0,
      keys: [],
      balance: undefined,
    });
    const quests = await app.db
      .selectFrom('userQuests')
      .selectAll()
      .where('userId', '=', before.body.data.id)
      .execute();
    expect(quests).toEqual([]);

    const onboarded = await onboard(token, {});
    expect(onboarded.status).toBe(201);
    expect(onboarded.body.data.questSync.pointsAwarded).toBe(175);
    expect(onboarded.body.data.questSync.completed.map((q: { id: string }) => q.id).sort()).toEqual(
      ['claim_handle', 'name_rival', 'pick_team', 'welcome'].sort(),
    );
  });

  it('syncs quests on each PATCH after onboarding: a rival completes name_rival and moves rank', async () => {
    const token = await app.token();
    const onboarded = await onboard(token, { favoriteTeam: 'Napoli' });
    const rankBefore = onboarded.body.data.leaderboardEntry.rank;
    const response = await patch(token, { rivalTeam: 'Juventus' });
    expect(response.status).toBe(200);
    expect(response.body.data.points).toBe(onboarded.body.data.user.points + 25);
    const again = await onboard(token, {});
    expect(again.body.data.leaderboardEntry.rank).toBeLessThanOrEqual(rankBefore);
    expect(again.body.data.pointsHistory.entries[0]).toMatchObject({
      questId: 'name_rival',
      delta: 25,
    });
    expect(await ledgerState(response.body.data.id)).toMatchObject({ sum: 150, balance: 150 });
  });

  it('completes complete_profile when all eight fields are set', async () => {
    const token = await app.token();
    await onboard(token, {
      name: 'Complete',
      handle: uniqueHandle('full'),
      location: 'Madrid',
      favoriteSport: 'Football',
      favoriteTeam: 'Real Madrid',
      favoritePlayer: 'Raúl',
      profileUrl: 'https://example.com/c',
    });
    const response = await patch(token, { rivalTeam: 'Barcelona' });
    // welcome 100 + handle 25 + team 25 on onboarding; rival 25 + complete 100 now
    expect(response.body.data.points).toBe(275);
    const sync = await onboard(token, {});
    const profileQuests = sync.body.data.questSync.quests.filter(
      (q: { period: string | null }) => q.period === null,
    );
    expect(profileQuests).toHaveLength(5);
    expect(profileQuests.every((q: { status: string }) => q.status === 'completed')).toBe(true);
  });

  it('serves onboarding over the typed tRPC client with the same shapes', async () => {
    const client = app.trpc(await app.token());
    const result = await client.onboardProfile.mutate({ name: 'Typed', favoriteTeam: 'Boca' });
    expect(result.data.user.points).toBe(125);
    expect(result.data.questSync.pointsAwarded).toBe(125);
    const repeat = await client.onboardProfile.mutate({});
    expect(repeat.data.questSync.pointsAwarded).toBe(0);
    expect(repeat.data.leaderboardEntry.userId).toBe(result.data.user.id);
  });
});

describe('POST /api/user/profile — errors', () => {
  it('refuses rivalTeam and points to PATCH /api/user', async () => {
    const response = await onboard(await app.token(), { rivalTeam: 'Spurs', name: 'x' });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain('PATCH /api/user');
    expect(response.body.error.issues).toEqual([expect.objectContaining({ path: 'rivalTeam' })]);
  });

  it('applies the same field rules as PATCH', async () => {
    const token = await app.token();
    const response = await onboard(token, { profileUrl: 'http://insecure.example' });
    expect(response.status).toBe(400);
    expect(response.body.error.issues[0].path).toBe('profileUrl');
    expect((await onboard(token, { handle: 'api' })).status).toBe(400);
    expect((await onboard(token, { favouriteTeam: 'x' })).body.error.issues[0].path).toBe(
      'favouriteTeam',
    );
  });

  it('leaves nothing behind when it fails part-way (handle conflict)', async () => {
    const handle = uniqueHandle('taken');
    await patch(await app.token(), { handle });
    const token = await app.token();
    const failed = await onboard(token, { name: 'Half', favoriteTeam: 'Lyon', handle });
    expect(failed.status).toBe(409);
    expect(failed.body.error.code).toBe('HANDLE_TAKEN');

    const me = await patch(token, { location: 'Paris' });
    const userId = me.body.data.id;
    expect(me.body.data).toMatchObject({
      name: null,
      favoriteTeam: null,
      onboardedAt: null,
      points: 0,
    });
    expect(await ledgerState(userId)).toEqual({ sum: 0, keys: [], balance: undefined });
    const quests = await app.db
      .selectFrom('userQuests')
      .selectAll()
      .where('userId', '=', userId)
      .execute();
    expect(quests).toEqual([]);
  });
});

describe('POST /api/user/profile — exactly once under concurrency', () => {
  it('20 concurrent onboardings of one user award the welcome points once', async () => {
    const token = await app.token();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => onboard(token, { favoriteTeam: 'Milan' })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const userId = responses[0]!.body.data.user.id;
    const state = await ledgerState(userId);
    expect(state).toEqual({ sum: 125, balance: 125, keys: ['quest:pick_team', 'quest:welcome'] });
    const awarded = responses.reduce((sum, r) => sum + r.body.data.questSync.pointsAwarded, 0);
    expect(awarded).toBe(125);
  });

  it('concurrent onboarding of many users yields ranks exactly 1..N', async () => {
    // A database of its own, so N is exactly the users this test onboards.
    const own = await createTestDatabase();
    const ownApp = await startTestApp({ database: own, issuer: app.issuer });
    try {
      const tokens = await Promise.all(Array.from({ length: 15 }, () => ownApp.token()));
      const bodies = tokens.map((_, i) => (i % 3 === 0 ? { favoriteTeam: 'Porto' } : {}));
      const first = await Promise.all(
        tokens.map((token, i) =>
          ownApp.request('POST', '/api/user/profile', { token, body: bodies[i] }),
        ),
      );
      expect(first.map((r) => r.status)).toEqual(Array(15).fill(201));
      const again = await Promise.all(
        tokens.map((token) => ownApp.request('POST', '/api/user/profile', { token, body: {} })),
      );
      const ranks = again
        .map((r) => r.body.data.leaderboardEntry.rank as number)
        .sort((x, y) => x - y);
      expect(ranks).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
      // the five with a team (125 points) rank above the ten without (100)
      const top5 = again
        .filter((r) => r.body.data.leaderboardEntry.rank <= 5)
        .map((r) => r.body.data.user.points);
      expect(top5).toEqual(Array(5).fill(125));
    } finally {
      await ownApp.close();
      await own.destroy();
    }
  });
});

describe('leaderboard rank is deterministic', () => {
  it('breaks ties by who reached the score first', async () => {
    const [a, b] = await Promise.all([app.token(), app.token()]);
    const body = { name: 'Tie', favoriteTeam: 'Ajax' };
    const ra = await onboard(a!, body);
    const rb = await onboard(b!, body);
    expect(ra.body.data.user.points).toBe(rb.body.data.user.points);
    const rankA = (await onboard(a!, {})).body.data.leaderboardEntry.rank;
    const rankB = (await onboard(b!, {})).body.data.leaderboardEntry.rank;
    expect(rankB).toBe(rankA + 1);
    // Each write takes its own number from one sequence: no two entries of a
    // board tie on it, so user id never has to decide (db/queries/rank.ts).
    const seqs = await app.db
      .selectFrom('leaderboardEntries')
      .select((eb) => eb.fn.count<string>('reachedSeq').distinct().as('distinct'))
      .select((eb) => eb.fn.countAll<string>().as('all'))
      .where('board', '=', 'all')
      .executeTakeFirstOrThrow();
    expect(seqs.distinct).toBe(seqs.all);
  });
});

describe('POST /api/user/profile — one clock', () => {
  it('stamps every row of one onboarding with the same database transaction time', async () => {
    const token = await app.token();
    const response = await onboard(token, {
      name: 'Clock Fan',
      handle: uniqueHandle('clock'),
      favoriteTeam: 'Everton',
    });
    expect(response.status).toBe(201);
    const userId: string = response.body.data.user.id;

    // Compared in the database, to the microsecond: a JS clock would differ.
    const { rows } = await sql<{ times: string; stamps: string }>`
      SELECT count(DISTINCT t)::text AS times, count(*)::text AS stamps FROM (
        SELECT onboarded_at AS t FROM users WHERE id = ${userId}
        UNION ALL SELECT updated_at FROM users WHERE id = ${userId}
        UNION ALL SELECT updated_at FROM profiles WHERE user_id = ${userId}
        UNION ALL SELECT created_at FROM points_ledger WHERE user_id = ${userId}
        UNION ALL SELECT completed_at FROM user_quests WHERE user_id = ${userId} AND completed_at IS NOT NULL
        UNION ALL SELECT updated_at FROM user_quests WHERE user_id = ${userId}
        UNION ALL SELECT reached_at FROM leaderboard_entries WHERE user_id = ${userId}
        UNION ALL SELECT updated_at FROM leaderboard_entries WHERE user_id = ${userId}
      ) AS stamps`.execute(app.db);
    expect(Number(rows[0]!.stamps)).toBeGreaterThan(10);
    expect(rows[0]!.times).toBe('1');

    const data = response.body.data;
    const onboardedAt: string = data.user.onboardedAt;
    expect(data.updatedProfile.updatedAt).toBe(onboardedAt);
    for (const quest of data.questSync.completed) expect(quest.completedAt).toBe(onboardedAt);
    for (const entry of data.pointsHistory.entries) expect(entry.createdAt).toBe(onboardedAt);
  });
});

describe('quest completion time', () => {
  it('stays where it was set when later writes change the quest progress again', async () => {
    const token = await app.token();
    const onboarded = await onboard(token, {
      name: 'Keeps Time',
      handle: uniqueHandle('keeps'),
      location: 'Porto',
      favoriteSport: 'Football',
      favoriteTeam: 'Boavista',
      favoritePlayer: 'Ricky',
      profileUrl: 'https://example.com/keeps',
    });
    expect(onboarded.status).toBe(201);
    // rivalTeam completes name_rival and, as the eighth field, complete_profile.
    const rival = await patch(token, { rivalTeam: 'Leixões' });
    expect(rival.body.data.points).toBe(275);
    const completedAt = (
      quests: Array<{ id: string; period: string | null; completedAt: string | null }>,
    ) =>
      Object.fromEntries(
        quests
          .filter((quest) => quest.period === null)
          .map((quest) => [quest.id, quest.completedAt]),
      );
    const before = await app.request('GET', '/api/user/quests', { token });
    const setAt = completedAt(before.body.data.quests);
    const onboardedAt: string = onboarded.body.data.user.onboardedAt;
    expect(setAt).toEqual({
      welcome: onboardedAt,
      claim_handle: onboardedAt,
      pick_team: onboardedAt,
      name_rival: rival.body.data.updatedAt,
      complete_profile: rival.body.data.updatedAt,
    });
    expect(onboardedAt < rival.body.data.updatedAt).toBe(true);

    // Later writes, on a later clock, that rewrite the rows of completed quests:
    // progress falls (fields cleared, the quests stay completed) and rises again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cleared = await patch(token, { favoriteTeam: null, rivalTeam: null });
    expect(cleared.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reset = await patch(token, { favoriteTeam: 'Salgueiros', rivalTeam: 'Leixões' });
    expect(reset.status).toBe(200);
    expect(reset.body.data.points).toBe(275);

    const progress = { welcome: 1, claim_handle: 1, pick_team: 1, name_rival: 1 };
    const expected = (
      all: Array<{
        id: string;
        period: string | null;
        progress: number;
        status: string;
        completedAt: string | null;
      }>,
    ) => {
      const quests = all.filter((quest) => quest.period === null);
      expect(completedAt(quests)).toEqual(setAt);
      expect(quests.every((quest) => quest.status === 'completed')).toBe(true);
      expect(quests.map((quest) => quest.progress)).toEqual([...Object.values(progress), 8]);
    };
    expected((await app.request('GET', '/api/user/quests', { token })).body.data.quests);
    expected((await app.trpc(token).quests.query()).data.quests);
    expected((await onboard(token, {})).body.data.questSync.quests);
    expected((await app.request('GET', '/api/user/export', { token })).body.data.quests);
    // And as stored, read by another instance with nothing cached.
    const other = await startTestApp({ database, issuer: app.issuer });
    try {
      expected((await other.request('GET', '/api/user/quests', { token })).body.data.quests);
    } finally {
      await other.close();
    }
  });
});
