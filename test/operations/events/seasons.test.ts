import { describe, expect, it } from 'vitest';
import { consistencyProblems } from '../../helpers/consistency.js';
import { Collector, liveClient } from '../../helpers/live.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Events and seasons (docs/ACTIVITY.md, "Reversal" and "Late events and
 * seasons"): which week and month boards a recorded event and its reversal
 * move, what an archived season keeps, and which day a late event's cap
 * counts in. The app's clock is injected and moved (as the season tests do);
 * each test plays in weeks of its own, far from today's, since season boards
 * are shared by every fan of the file.
 */
let now = new Date('2027-03-10T12:00:00.000Z');
const { app, database } = useTestApp({ clock: () => now });

/** POST /api/events as a service, asserting the envelope of a 200. */
async function send(token: string, events: unknown[]) {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

async function reverse(token: string, id: string) {
  const response = await app.request('POST', '/api/events/reversals', { token, body: { id } });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

async function onboardedFan(prefix: string, body: Record<string, unknown> = {}) {
  const subject = uniqueSubject(prefix);
  const token = await app.token(subject);
  const response = await app.request('POST', '/api/user/profile', { token, body });
  expect(response.status, response.text).toBe(201);
  return { subject, token, id: response.body.data.user.id as string };
}

async function get(path: string, token: string) {
  const response = await app.request('GET', path, { token });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

/** [userId, rank, points] of a board page, in order. */
const standings = (page: { entries: Array<{ userId: string; rank: number; points: number }> }) =>
  page.entries.map((e) => [e.userId, e.rank, e.points]);

/** A fan's entry on one board as stored (the closed season's live board has no read of its own). */
async function storedPoints(userId: string, board: string) {
  const row = await database.db
    .selectFrom('leaderboardEntries')
    .select('points')
    .where('userId', '=', userId)
    .where('board', '=', board)
    .executeTakeFirst();
  return row?.points;
}

describe('a reversal and the seasons its event credited', () => {
  it('after the season was archived: the balance, all-time, team and month boards move back; the archive stays as it was', async () => {
    now = new Date('2027-03-10T12:00:00.000Z'); // Wednesday of 2027-W10, month 2027-03
    const team = `Reversal ${Date.now().toString(36)}`;
    const service = await app.serviceToken('archive-reversals');
    const target = await onboardedFan('target', { favoriteTeam: team }); // 125
    const rival = await onboardedFan('rival', { favoriteTeam: team }); // 125
    const other = await onboardedFan('other'); // 100
    await send(service, [
      { id: `${target.subject}-p1`, subject: target.subject, type: 'prediction_correct' },
      { id: `${target.subject}-p2`, subject: target.subject, type: 'prediction_correct' },
      { id: `${rival.subject}-p1`, subject: rival.subject, type: 'prediction_correct' },
      // Ten articles (10) complete the daily reader quest (10).
      { id: `${rival.subject}-r1`, subject: rival.subject, type: 'article_read', value: 10 },
    ]);
    // The target 175, the rival 170, the other fan 100.
    const expectedWeek = [
      [target.id, 1, 175],
      [rival.id, 2, 170],
      [other.id, 3, 100],
    ];

    // A week later the season has closed; its first read cuts the archive.
    now = new Date('2027-03-17T12:00:00.000Z'); // 2027-W11, still 2027-03
    const archivePath = '/api/leaderboard?period=week&season=2027-W10';
    const archived = await get(archivePath, other.token);
    expect(standings(archived)).toEqual(expectedWeek);
    expect(await storedPoints(target.id, 'week:2027-W10')).toBe(175);

    // The team's board, streamed live to one of its fans.
    const board = new Collector<any>();
    const subscription = liveClient(app.url, rival.token).leaderboardEvents.subscribe(
      { team, top: 3 },
      board,
    );
    try {
      await board.until(() => board.items.length >= 1, 5_000, 'the first top');
      expect(board.items[0]!.data.entries.map((e: any) => [e.userId, e.points])).toEqual([
        [target.id, 175],
        [rival.id, 170],
      ]);

      expect(await reverse(service, `${target.subject}-p2`)).toEqual({
        id: `${target.subject}-p2`,
        status: 'reversed',
        points: -25,
        balance: 150,
      });

      // The archive is final: the same standings, rank for rank, and its board untouched.
      expect(await get(archivePath, other.token)).toEqual(archived);
      expect(await storedPoints(target.id, 'week:2027-W10')).toBe(175);
      // The live boards follow: balance, all-time, the team's board, the current month.
      expect((await get('/api/user', target.token)).points).toBe(150);
      const all = await get('/api/leaderboard?limit=100', other.token);
      expect(
        standings(all)
          .filter(([userId]) => [target.id, rival.id, other.id].includes(userId as string))
          .map(([userId, , points]) => [userId, points]),
      ).toEqual([
        [rival.id, 170],
        [target.id, 150],
        [other.id, 100],
      ]);
      const teamBoard = await get(`/api/leaderboard?team=${encodeURIComponent(team)}`, other.token);
      expect(standings(teamBoard)).toEqual([
        [rival.id, 1, 170],
        [target.id, 2, 150],
      ]);
      const month = await get('/api/leaderboard/me?period=month', target.token);
      expect(month).toMatchObject({ season: '2027-03', entry: { points: 150 } });
      // Nothing is credited to (or taken from) the week the reversal happens in.
      const week = await app.request('GET', '/api/leaderboard/me?period=week', {
        token: target.token,
      });
      expect(week.status).toBe(404);
      await board.until(
        () => board.items.at(-1)!.data.entries[0]?.userId === rival.id,
        5_000,
        'the new top of the team',
      );
      expect(
        board.items.at(-1)!.data.entries.map((e: any) => [e.userId, e.rank, e.points]),
      ).toEqual([
        [rival.id, 1, 170],
        [target.id, 2, 150],
      ]);
    } finally {
      subscription.unsubscribe();
    }
    expect(await consistencyProblems(database.db)).toEqual([]);
  });

  it('before the season was archived: its closed board moves back too, and the cut shows it', async () => {
    now = new Date('2027-03-24T12:00:00.000Z'); // Wednesday of 2027-W12
    const service = await app.serviceToken('closed-reversals');
    const target = await onboardedFan('target'); // 100
    const rival = await onboardedFan('rival'); // 100
    await send(service, [
      { id: `${target.subject}-p`, subject: target.subject, type: 'prediction_correct' },
      { id: `${rival.subject}-r`, subject: rival.subject, type: 'article_read', value: 5 },
    ]);
    // The target 125, the rival 115 (5 articles and the daily reader quest's 10).

    now = new Date('2027-03-31T12:00:00.000Z'); // 2027-W13: 2027-W12 closed, not cut yet
    expect(await reverse(service, `${target.subject}-p`)).toMatchObject({
      status: 'reversed',
      balance: 100,
    });
    expect(await storedPoints(target.id, 'week:2027-W12')).toBe(100);
    const archived = await get('/api/leaderboard?period=week&season=2027-W12', rival.token);
    expect(standings(archived)).toEqual([
      [rival.id, 1, 115],
      [target.id, 2, 100],
    ]);
    const month = await get('/api/leaderboard/me?period=month', target.token);
    expect(month).toMatchObject({ season: '2027-03', entry: { points: 100 } });
    expect(await consistencyProblems(database.db)).toEqual([]);
  });
});

describe('a late occurredAt', () => {
  it("counts against its own day's cap and credits the boards of when it is recorded", async () => {
    now = new Date('2027-02-28T12:00:00.000Z'); // Sunday: 2027-W08, month 2027-02
    const fan = await onboardedFan('late'); // 100 in 2027-W08 and 2027-02
    const service = await app.serviceToken('late-checkins');
    const yesterday = '2027-02-28T20:00:00.000Z';

    now = new Date('2027-03-01T10:00:00.000Z'); // Monday: 2027-W09, month 2027-03
    const late = await send(
      service,
      Array.from({ length: 5 }, (_, i) => ({
        id: `${fan.subject}-late-${i}`,
        subject: fan.subject,
        type: 'match_checkin',
        occurredAt: yesterday,
      })),
    );
    expect(late.map((r) => r.status)).toEqual(Array(5).fill('recorded'));
    // Two check-ins in 2027-W08 completed that week's match-day quest.
    expect(late[1].questsCompleted).toEqual([
      { id: 'matchday_regular', period: '2027-W08', tier: 1, points: 30 },
    ]);

    const more = await send(service, [
      {
        id: `${fan.subject}-late-5`,
        subject: fan.subject,
        type: 'match_checkin',
        occurredAt: yesterday,
      },
      { id: `${fan.subject}-today`, subject: fan.subject, type: 'match_checkin' },
    ]);
    expect(more[0]).toMatchObject({ status: 'rejected', error: { code: 'CAP_REACHED' } });
    expect(more[1]).toMatchObject({ status: 'recorded', points: 10, questsCompleted: [] });

    // 100 + 5 × 10 + 30 (2027-W08's quest) + 10 (today's check-in).
    expect((await get('/api/user', fan.token)).points).toBe(190);
    expect((await get('/api/leaderboard/me', fan.token)).entry.points).toBe(190);
    // Everything recorded today credits today's week and month, not yesterday's.
    expect(await get('/api/leaderboard/me?period=week', fan.token)).toMatchObject({
      season: '2027-W09',
      entry: { points: 90 },
    });
    expect(await get('/api/leaderboard/me?period=month', fan.token)).toMatchObject({
      season: '2027-03',
      entry: { points: 90 },
    });
    const lastWeek = await get('/api/leaderboard?period=week&season=2027-W08', fan.token);
    expect(lastWeek.entries.find((e: any) => e.userId === fan.id)).toMatchObject({ points: 100 });
    const lastMonth = await get('/api/leaderboard?period=month&season=2027-02', fan.token);
    expect(lastMonth.entries.find((e: any) => e.userId === fan.id)).toMatchObject({
      points: 100,
    });
    // This week's match-day quest counts today's check-in only.
    const quests = await get('/api/user/quests', fan.token);
    expect(quests.quests.find((q: any) => q.id === 'matchday_regular')).toMatchObject({
      period: '2027-W09',
      progress: 1,
      status: 'in_progress',
    });
    expect(await consistencyProblems(database.db)).toEqual([]);
  });
});

describe('points earned before onboarding', () => {
  it("open the week and month boards with what was earned in them; a reversal counts in its event's season, an adjustment in none", async () => {
    const service = await app.serviceToken('early-checkins');
    const subject = uniqueSubject('early');
    const event = (id: string, type: string, value = 1) => ({
      id: `${subject}-${id}`,
      subject,
      type,
      value,
    });

    now = new Date('2027-04-28T12:00:00.000Z'); // Wednesday: 2027-W17, month 2027-04
    expect((await send(service, [event('checkin', 'match_checkin')]))[0].status).toBe('recorded');
    now = new Date('2027-04-29T12:00:00.000Z'); // 2027-W17, 2027-04
    expect((await send(service, [event('april', 'prediction_correct')]))[0].status).toBe(
      'recorded',
    );
    now = new Date('2027-05-01T12:00:00.000Z'); // Saturday: 2027-W17, month 2027-05
    expect((await send(service, [event('read', 'article_read', 2)]))[0].status).toBe('recorded');

    now = new Date('2027-05-05T12:00:00.000Z'); // Wednesday: 2027-W18, 2027-05
    expect((await send(service, [event('may', 'prediction_correct')]))[0].status).toBe('recorded');
    // Reversed in 2027-W18: the 25 were recorded in 2027-W17 and April, and count in neither
    // this week nor this month.
    expect(await reverse(service, `${subject}-april`)).toMatchObject({ status: 'reversed' });

    const token = await app.token(subject);
    // An adjustment moves the balance and the all-time board, never a season's.
    const admin = await app.serviceToken('early-ops', 'admin');
    const adjusted = await app.request(
      'POST',
      `/api/admin/fans/${(await get('/api/user', token)).id}/adjustments`,
      { token: admin, body: { id: `${subject}-goodwill`, points: 40, reason: 'Gate 4' } },
    );
    expect(adjusted.status, adjusted.text).toBe(200);

    const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(onboarding.status, onboarding.text).toBe(201);
    // 10 + 25 + 2 + 25 − 25 + 40 before, and 100 for onboarding.
    expect(onboarding.body.data.user.points).toBe(177);
    expect((await get('/api/leaderboard/me', token)).entry.points).toBe(177);
    expect(await get('/api/leaderboard/me?period=week', token)).toMatchObject({
      season: '2027-W18',
      entry: { points: 125 },
    });
    expect(await get('/api/leaderboard/me?period=month', token)).toMatchObject({
      season: '2027-05',
      entry: { points: 127 },
    });
    expect(await consistencyProblems(database.db)).toEqual([]);
  });
});
