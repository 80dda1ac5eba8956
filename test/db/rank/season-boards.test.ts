import { describe, expect, it } from 'vitest';
import { findRankedEntry } from '../../../db/queries/leaderboard.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { useTestApp } from '../../helpers/test-app.js';

/**
 * Every award credits the all-time board and the ISO week's and UTC month's
 * boards of the app's clock (db/schema.ts). The clock is the app's own, so the
 * test moves it instead of waiting.
 */

let now = new Date('2026-11-29T23:59:59.000Z'); // Sunday: the last second of 2026-W48
const { app, database } = useTestApp({ clock: () => now });

async function entriesOf(userId: string) {
  const rows = await database.db
    .selectFrom('leaderboardEntries')
    .select(['board', 'points', 'teamKey'])
    .where('userId', '=', userId)
    .orderBy('board')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.board, [row.points, row.teamKey]]));
}

describe('season boards', () => {
  it('credit the week and month of the clock, start afresh in the next season, and follow the team', async () => {
    now = new Date('2026-11-29T23:59:59.000Z');
    const token = await app.token();
    const first = await app.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: 'Ajax' },
    });
    expect(first.status).toBe(201);
    const userId: string = first.body.data.user.id;
    expect(await entriesOf(userId)).toEqual({
      all: [125, 'ajax'],
      'month:2026-11': [125, 'ajax'],
      'week:2026-W48': [125, 'ajax'],
    });

    // One second later: a new ISO week (2026-W49) and a new month.
    now = new Date('2026-11-30T00:00:00.000Z');
    expect(
      (await app.request('PATCH', '/api/user', { token, body: { rivalTeam: 'PSV' } })).status,
    ).toBe(200);
    expect(await entriesOf(userId)).toEqual({
      all: [150, 'ajax'],
      'month:2026-11': [150, 'ajax'],
      'week:2026-W48': [125, 'ajax'],
      'week:2026-W49': [25, 'ajax'],
    });

    // A team change moves the current seasons' entries (and their counts) too; the
    // finished week keeps the standings it ended with.
    expect(
      (await app.request('PATCH', '/api/user', { token, body: { favoriteTeam: 'Feyenoord' } }))
        .status,
    ).toBe(200);
    expect(await entriesOf(userId)).toEqual({
      all: [150, 'feyenoord'],
      'month:2026-11': [150, 'feyenoord'],
      'week:2026-W48': [125, 'ajax'],
      'week:2026-W49': [25, 'feyenoord'],
    });
    expect(await consistencyProblems(database.db)).toEqual([]);
  });

  it('rank each season by the points earned in it, ties by who reached that score first', async () => {
    now = new Date('2027-03-10T12:00:00.000Z'); // 2027-W10, month 2027-03
    const veteran = await app.token();
    const veteranId: string = (
      await app.request('POST', '/api/user/profile', { token: veteran, body: {} })
    ).body.data.user.id;
    // Next week the veteran earns 25; a newcomer earns 100 (welcome).
    now = new Date('2027-03-17T12:00:00.000Z'); // 2027-W11
    await app.request('PATCH', '/api/user', { token: veteran, body: { rivalTeam: 'Inter' } });
    const newcomer = await app.token();
    const newcomerId: string = (
      await app.request('POST', '/api/user/profile', { token: newcomer, body: {} })
    ).body.data.user.id;
    const rank = async (userId: string, board: string) =>
      (await findRankedEntry(database.db, userId, { board }))?.rank;
    expect(await rank(newcomerId, 'week:2027-W11')).toBe(1);
    expect(await rank(veteranId, 'week:2027-W11')).toBe(2);
    // The month: veteran 125 (100 + 25), newcomer 100.
    expect(await rank(veteranId, 'month:2027-03')).toBe(1);
    expect(await rank(newcomerId, 'month:2027-03')).toBe(2);
    expect(await rank(newcomerId, 'week:2027-W10')).toBeUndefined();
    // A third user ties the newcomer on the week (100): they reached it later.
    const third = await app.token();
    const thirdId: string = (
      await app.request('POST', '/api/user/profile', { token: third, body: {} })
    ).body.data.user.id;
    expect(await rank(newcomerId, 'week:2027-W11')).toBe(1);
    expect(await rank(thirdId, 'week:2027-W11')).toBe(2);
    expect(await rank(veteranId, 'week:2027-W11')).toBe(3);
    expect(await consistencyProblems(database.db)).toEqual([]);
  });
});
