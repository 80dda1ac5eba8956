import { describe, expect, it } from 'vitest';
import { Collector, liveClient } from '../../helpers/live.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The boards for admin clients (the console's Leaderboards): GET /api/admin/leaderboard and
 * /leaderboard/seasons on both faces, and the adminLeaderboardEvents subscription, checked
 * against the fans' own procedures on the same boards. The clock is the app's, moved to close a
 * season; the weeks played are far from today's.
 */
let now = new Date('2027-05-12T12:00:00.000Z'); // Wednesday of 2027-W19, month 2027-05
const { app } = useTestApp({ clock: () => now });

const admin = () => app.serviceToken('ops-boards', 'admin');

async function get(path: string, token: string) {
  const response = await app.request('GET', path, { token });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

async function onboardedFan(prefix: string, body: Record<string, unknown> = {}) {
  const subject = uniqueSubject(prefix);
  const token = await app.token(subject);
  const response = await app.request('POST', '/api/user/profile', {
    token,
    body: { handle: `${prefix}${Date.now().toString(36)}${subject.length}`, ...body },
  });
  expect(response.status, response.text).toBe(201);
  return { subject, token, id: response.body.data.user.id as string };
}

async function send(events: Array<{ subject: string; type: string }>) {
  const response = await app.request('POST', '/api/events', {
    token: await app.serviceToken('boards-game'),
    body: { events: events.map((e) => ({ id: uniqueSubject('ev'), ...e })) },
  });
  expect(response.status, response.text).toBe(200);
  for (const result of response.body.data.results) expect(result.status).toBe('recorded');
}

async function adjust(userId: string, points: number) {
  const response = await app.request('POST', `/api/admin/fans/${userId}/adjustments`, {
    token: await admin(),
    body: { id: uniqueSubject('adj'), points, reason: 'boards test' },
  });
  expect(response.status, response.text).toBe(200);
}

const ranking = (page: {
  entries: Array<{ userId: string | null; rank: number; points: number }>;
}) => page.entries.map((e) => [e.userId, e.rank, e.points]);

describe('the boards for admin clients', () => {
  it('reads every board as the fans’ API ranks it, on both faces', async () => {
    const team = `Boards ${Date.now().toString(36)}`;
    const a = await onboardedFan('ba', { favoriteTeam: team });
    const b = await onboardedFan('bb', { favoriteTeam: team });
    const c = await onboardedFan('bc');
    await adjust(b.id, 40);
    await send([
      { subject: c.subject, type: 'prediction_correct' },
      { subject: a.subject, type: 'match_checkin' },
    ]);
    const token = await admin();

    const global = await get('/api/admin/leaderboard', token);
    expect(global).toMatchObject({ board: 'global', team: null, period: 'all', season: null });
    expect(global.entries.length).toBeGreaterThanOrEqual(3);
    expect(ranking(global)).toEqual(ranking(await get('/api/leaderboard?limit=100', a.token)));
    expect(global.entries.map((e: any) => e.handle)).toContain(
      (await get('/api/user', b.token)).handle,
    );

    const teamBoard = await get(
      `/api/admin/leaderboard?board=team&team=${encodeURIComponent(team)}`,
      token,
    );
    expect(teamBoard).toMatchObject({ board: 'team', team, period: 'all' });
    expect(teamBoard.entries.map((e: any) => e.userId)).toEqual([b.id, a.id]);
    expect(ranking(teamBoard)).toEqual(
      ranking(await get(`/api/leaderboard?limit=100&team=${encodeURIComponent(team)}`, a.token)),
    );

    // The week's board counts what was earned in it (the adjustment counts all-time only).
    const week = await get('/api/admin/leaderboard?board=week&limit=2', token);
    expect(week).toMatchObject({ board: 'week', period: 'week', season: '2027-W19' });
    expect(week.entries).toHaveLength(2);
    expect(ranking(week)).toEqual(
      ranking(await get('/api/leaderboard?period=week&limit=2', a.token)),
    );
    const month = await get('/api/admin/leaderboard?board=month', token);
    expect(month).toMatchObject({ board: 'month', season: '2027-05' });
    expect(ranking(month)).toEqual(
      ranking(await get('/api/leaderboard?period=month&limit=100', a.token)),
    );

    const viaTrpc = await app.trpc(token).adminLeaderboard.query({ board: 'team', team });
    expect(ranking(viaTrpc.data)).toEqual(ranking(teamBoard));
  });

  it('lists the open and closed seasons, and reads a closed one’s final standings', async () => {
    now = new Date('2027-05-26T12:00:00.000Z'); // 2027-W21
    const fan = await onboardedFan('season');
    await send([{ subject: fan.subject, type: 'prediction_correct' }]);
    const during = await get('/api/admin/leaderboard?board=week', await admin());
    const standing = during.entries.find((e: any) => e.userId === fan.id);
    expect(standing).toBeDefined();

    now = new Date('2027-06-02T12:00:00.000Z'); // 2027-W22, 2027-06
    const token = await admin();
    const seasons = await get('/api/admin/leaderboard/seasons?period=week', token);
    expect(seasons.open).toEqual({
      season: '2027-W22',
      startsAt: '2027-05-31T00:00:00.000Z',
      endsAt: '2027-06-07T00:00:00.000Z',
    });
    const fans = await get('/api/leaderboard/seasons?period=week', fan.token);
    expect(seasons.entries).toEqual(fans.entries);
    expect(seasons.entries[0].season).toBe('2027-W21');

    const closed = await get('/api/admin/leaderboard?board=week&season=2027-W21', token);
    expect(closed).toMatchObject({ board: 'week', season: '2027-W21' });
    expect(ranking(closed)).toEqual(ranking(during));
    expect(ranking(closed)).toEqual(
      ranking(await get('/api/leaderboard?period=week&season=2027-W21&limit=100', fan.token)),
    );
    // The season in progress has no final standings yet.
    const open = await app.request('GET', '/api/admin/leaderboard?board=week&season=2027-W22', {
      token,
    });
    expect(open.status).toBe(404);
    expect(open.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('refuses a fan’s token and bad input in the error envelope', async () => {
    const fan = await onboardedFan('refused');
    for (const path of ['/api/admin/leaderboard', '/api/admin/leaderboard/seasons?period=week']) {
      const refused = await app.request('GET', path, { token: fan.token });
      expect(refused.status, path).toBe(403);
      expect(refused.body).toMatchObject({
        success: false,
        error: { code: 'INSUFFICIENT_SCOPE' },
      });
    }
    const game = await app.serviceToken('boards-game');
    expect((await app.request('GET', '/api/admin/leaderboard', { token: game })).status).toBe(403);
    // The fans' board refuses the admin's token: why the admin procedures exist.
    const fansBoard = await app.request('GET', '/api/leaderboard', { token: await admin() });
    expect(fansBoard.status).toBe(403);
    expect(fansBoard.body.error.code).toBe('FAN_TOKEN_REQUIRED');

    const token = await admin();
    for (const [query, field] of [
      ['board=team', 'team'],
      ['team=Arsenal', 'team'],
      ['board=global&season=2027-W01', 'season'],
      ['limit=101', 'limit'],
      ['board=all', 'board'],
    ] as const) {
      const bad = await app.request('GET', `/api/admin/leaderboard?${query}`, { token });
      expect(bad.status, query).toBe(400);
      expect(bad.body.success).toBe(false);
      expect(bad.body.error.code, query).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(bad.body.error), query).toContain(field);
    }
    const badSeasons = await app.request('GET', '/api/admin/leaderboard/seasons?period=day', {
      token,
    });
    expect(badSeasons.status).toBe(400);
    await expect(app.trpc(token).adminLeaderboard.query({ board: 'team' })).rejects.toMatchObject({
      data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 },
    });
    await expect(app.trpc(fan.token).adminLeaderboard.query({})).rejects.toMatchObject({
      data: { errorCode: 'INSUFFICIENT_SCOPE', httpStatus: 403 },
    });
  });

  it('streams a board’s top to an admin client as points arrive, and not to a fan', async () => {
    const team = `Stream ${Date.now().toString(36)}`;
    const low = await onboardedFan('low', { favoriteTeam: team });
    const high = await onboardedFan('high', { favoriteTeam: team });
    await adjust(high.id, 10);
    const board = new Collector<any>();
    const subscription = liveClient(app.url, await admin()).adminLeaderboardEvents.subscribe(
      { team, top: 100 },
      board,
    );
    try {
      await board.until(() => board.items.length >= 1, 10_000, 'the first top');
      const first = board.items[0]!.data;
      expect(first).toMatchObject({ board: 'team', team });
      expect(first.entries.map((e: any) => e.userId)).toEqual([high.id, low.id]);

      await adjust(low.id, 50);
      await board.until(
        () => board.items.at(-1)!.data.entries[0]?.userId === low.id,
        10_000,
        'the top after the adjustment',
      );
      const moved = board.items.at(-1)!.data;
      expect(moved.entries.map((e: any) => [e.userId, e.rank])).toEqual([
        [low.id, 1],
        [high.id, 2],
      ]);
      const read = await get(
        `/api/admin/leaderboard?board=team&team=${encodeURIComponent(team)}`,
        await admin(),
      );
      expect(moved.entries).toEqual(read.entries);
    } finally {
      subscription.unsubscribe();
    }

    const refused = new Collector<any>();
    const fanStream = liveClient(app.url, low.token).adminLeaderboardEvents.subscribe(
      { top: 3 },
      refused,
    );
    try {
      await refused.until(() => refused.error !== undefined, 10_000, 'the refusal');
      expect(refused.items).toEqual([]);
      expect(refused.error).toMatchObject({ data: { errorCode: 'INSUFFICIENT_SCOPE' } });
    } finally {
      fanStream.unsubscribe();
    }
  });
});
