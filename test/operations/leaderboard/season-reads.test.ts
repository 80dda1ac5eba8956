import { describe, expect, it } from 'vitest';
import { seasonAt } from '../../../src/domain/seasons.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { FACES, reader, type ReadInput } from '../../helpers/reads.js';
import { useTestApp } from '../../helpers/test-app.js';
import { testDbKind } from '../../helpers/test-db.js';

/**
 * GET /api/leaderboard and /api/leaderboard/me with `period` (docs/SEASONS.md).
 * The app's clock is injected and moved; no test waits for a week to pass.
 */
let now = new Date('2026-11-25T12:00:00.000Z'); // Wednesday of 2026-W48
const { app, database } = useTestApp({ clock: () => now });

const onboard = async (token: string, body: Record<string, unknown> = {}) =>
  (await app.request('POST', '/api/user/profile', { token, body })).body.data.user.id as string;

describe.each(FACES)(`season boards over %s on ${testDbKind}`, (face) => {
  const read = () => reader(app, face);

  it('show the current week and month with when they began and when they reset', async () => {
    now = new Date('2026-11-25T12:00:00.000Z');
    const viewer = await app.token();
    const week = await read()('leaderboard', viewer, { period: 'week', limit: 1 });
    expect(week.ok && { ...week.data, entries: [], nextCursor: null }).toEqual({
      period: 'week',
      season: '2026-W48',
      startsAt: '2026-11-23T00:00:00.000Z',
      nextResetAt: '2026-11-30T00:00:00.000Z',
      entries: [],
      nextCursor: null,
    });
    const month = await read()('leaderboard', viewer, { period: 'month' });
    expect(month.ok && month.data).toMatchObject({
      period: 'month',
      season: '2026-11',
      startsAt: '2026-11-01T00:00:00.000Z',
      nextResetAt: '2026-12-01T00:00:00.000Z',
    });
    const all = await read()('leaderboard', viewer, {});
    expect(all.ok && all.data).toMatchObject({
      period: 'all',
      season: null,
      startsAt: null,
      nextResetAt: null,
    });
    // An ISO week that straddles a year: 2027-01-01 is a Friday of 2026-W53.
    now = new Date('2027-01-01T08:00:00.000Z');
    const straddle = await read()('leaderboard', viewer, { period: 'week' });
    expect(straddle.ok && straddle.data).toMatchObject({
      season: '2026-W53',
      startsAt: '2026-12-28T00:00:00.000Z',
      nextResetAt: '2027-01-04T00:00:00.000Z',
    });
  });

  it('rank by points earned in the season; a new week starts empty; the month keeps counting', async () => {
    const team = `Season FC ${face}`;
    now = new Date('2028-05-10T12:00:00.000Z'); // 2028-W19, month 2028-05
    const veteran = await app.token();
    const veteranId = await onboard(veteran, { favoriteTeam: team }); // 125
    now = new Date('2028-05-15T00:00:00.000Z'); // Monday: 2028-W20 begins
    const newcomer = await app.token();
    const newcomerId = await onboard(newcomer, { favoriteTeam: team }); // 125 this week
    await app.request('PATCH', '/api/user', { token: veteran, body: { rivalTeam: 'Rivals' } }); // +25

    const week = await read()('leaderboard', veteran, { period: 'week', team });
    expect(week.ok && week.data.entries).toEqual([
      expect.objectContaining({ userId: newcomerId, points: 125, rank: 1 }),
      expect.objectContaining({ userId: veteranId, points: 25, rank: 2 }),
    ]);
    const month = await read()('leaderboard', veteran, { period: 'month', team });
    expect(month.ok && month.data.entries).toEqual([
      expect.objectContaining({ userId: veteranId, points: 150, rank: 1 }),
      expect.objectContaining({ userId: newcomerId, points: 125, rank: 2 }),
    ]);
    const me = await read()('leaderboardAroundMe', veteran, { period: 'week', team, radius: 1 });
    expect(me.ok && me.data).toMatchObject({
      period: 'week',
      season: '2028-W20',
      entry: { userId: veteranId, rank: 2, points: 25 },
      above: [{ userId: newcomerId, rank: 1 }],
      below: [],
    });
    // Next week: nobody has earned anything yet.
    now = new Date('2028-05-22T00:00:00.000Z');
    const empty = await read()('leaderboard', veteran, { period: 'week', team });
    expect(empty.ok && empty.data.entries).toEqual([]);
    const absent = await read()('leaderboardAroundMe', veteran, { period: 'week' });
    expect(absent).toMatchObject({
      ok: false,
      status: 404,
      code: 'NOT_FOUND',
      message: 'You are not on the week 2028-W21 leaderboard: it ranks who earned points in it',
    });
    expect(await consistencyProblems(database.db)).toEqual([]);
  });

  it('takes a cursor only on the board it came from: period, season, team, archive', async () => {
    // Each face plays in its own year: season boards are shared by everyone.
    const year = face === 'rest' ? 2050 : 2051;
    const team = `Cursor FC ${face}`;
    const week = seasonAt('week', new Date(`${year}-03-10T12:00:00.000Z`));
    now = new Date(week.endsAt.getTime() - 60_000); // the week's last minute
    const fans = [await app.token(), await app.token(), await app.token()];
    for (const token of fans) await onboard(token, { favoriteTeam: team }); // 125 each
    const viewer = fans[0]!;
    const page = (input: ReadInput) => read()('leaderboard', viewer, { limit: 1, ...input });
    const cursorOf = async (input: ReadInput) => {
      const first = await page(input);
      expect(first.ok && first.data.nextCursor).toEqual(expect.any(String));
      return first.ok ? (first.data.nextCursor as string) : undefined;
    };
    const refused = async (input: ReadInput) =>
      expect(await page(input), JSON.stringify(input)).toMatchObject({
        ok: false,
        status: 400,
        code: 'VALIDATION_FAILED',
        issues: [expect.objectContaining({ path: 'cursor' })],
      });
    const weekCursor = await cursorOf({ period: 'week' });
    const teamCursor = await cursorOf({ team });
    const allCursor = await cursorOf({});

    // On its own board a cursor continues the walk; a team in another letter case is that board.
    expect(await page({ period: 'week', cursor: weekCursor })).toMatchObject({
      ok: true,
      data: { season: week.id, entries: [{ rank: 2 }] },
    });
    expect(await page({ team: team.toUpperCase(), cursor: teamCursor })).toMatchObject({
      ok: true,
      data: { entries: [{ rank: 2 }] },
    });
    // Anywhere else it is a 400 naming cursor.
    await refused({ cursor: weekCursor });
    await refused({ period: 'month', cursor: weekCursor });
    await refused({ period: 'week', team, cursor: weekCursor });
    await refused({ cursor: teamCursor });
    await refused({ team: `${team} B`, cursor: teamCursor });
    await refused({ period: 'week', team, cursor: teamCursor });
    await refused({ period: 'week', cursor: allCursor });
    await refused({ team, cursor: allCursor });

    // Monday 00:00 UTC: the week board is a new one. The old walk does not go on there with
    // the old week's ranks; the new week starts from the first page.
    now = week.endsAt;
    for (const token of fans.slice(1)) {
      await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'Rivals' } }); // +25
    }
    await refused({ period: 'week', cursor: weekCursor });
    const next = seasonAt('week', now);
    expect(await page({ period: 'week' })).toMatchObject({
      ok: true,
      data: { season: next.id, entries: [{ rank: 1 }] },
    });

    // The closed week's final standings are another board than any live one.
    const archive = { period: 'week', season: week.id };
    const archiveCursor = await cursorOf(archive);
    expect(await page({ ...archive, cursor: archiveCursor })).toMatchObject({
      ok: true,
      data: { season: week.id, entries: [{ rank: 2 }] },
    });
    await refused({ period: 'week', cursor: archiveCursor });
    await refused({ cursor: archiveCursor });
    await refused({ ...archive, cursor: weekCursor });
    const weekBefore = seasonAt('week', new Date(week.startsAt.getTime() - 1)).id;
    await refused({ period: 'week', season: weekBefore, cursor: archiveCursor });
  });

  it('refuses a period it does not know', async () => {
    const result = await read()('leaderboard', await app.token(), { period: 'year' });
    expect(result).toMatchObject({ ok: false, status: 400, code: 'VALIDATION_FAILED' });
    expect(!result.ok && result.issues?.[0]?.path).toBe('period');
  });
});
