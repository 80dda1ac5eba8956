import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { consistencyProblems } from '../../helpers/consistency.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * A banned fan can still edit their profile (docs/CATALOG.md, "Bans"): onboarding again, changed
 * or not, answers 200 with their entry where they would stand, on both faces; never the 503 of an
 * account deleted mid-request.
 */
const { app } = useTestApp();

async function ban(userId: string, banned: boolean) {
  const response = await app.request('PUT', `/api/admin/fans/${userId}/ban`, {
    token: await app.serviceToken('ops-console', 'admin'),
    body: { banned, reason: banned ? 'Bot account' : 'Appeal upheld' },
  });
  expect(response.status, response.text).toBe(200);
}

/** Where the user's all-time entry would stand among the entries everyone sees. */
async function wouldStand(userId: string): Promise<number> {
  const { rows } = await sql<{ rank: string }>`
    SELECT 1 + count(*)::integer AS rank FROM leaderboard_entries o, leaderboard_entries me
    WHERE me.board = 'all' AND me.user_id = ${userId} AND o.board = 'all' AND NOT o.hidden
      AND o.user_id <> me.user_id AND (-o.points, o.reached_seq) < (-me.points, me.reached_seq)
  `.execute(app.db);
  return Number(rows[0]!.rank);
}

async function fanWithPoints(predictions: number) {
  const subject = uniqueSubject('fan');
  const token = await app.token(subject);
  const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(onboarding.status, onboarding.text).toBe(201);
  if (predictions > 0) {
    const service = await app.serviceToken('predict-service');
    const sent = await app.request('POST', '/api/events', {
      token: service,
      body: {
        events: Array.from({ length: predictions }, (_, i) => ({
          id: `${subject}-${i}`,
          subject,
          type: 'prediction_correct',
        })),
      },
    });
    expect(sent.status, sent.text).toBe(200);
  }
  return { subject, token, userId: onboarding.body.data.user.id as string };
}

describe('a banned fan onboarding again', () => {
  it('answers 200 on both faces, unchanged or changed, with the entry where they would stand', async () => {
    const above = await fanWithPoints(4);
    const banned = await fanWithPoints(2);
    const below = await fanWithPoints(0);
    await ban(banned.userId, true);

    const expected = await wouldStand(banned.userId);
    expect(expected).toBeGreaterThan(1);
    const unchanged = await app.request('POST', '/api/user/profile', {
      token: banned.token,
      body: {},
    });
    expect(unchanged.status, unchanged.text).toBe(200);
    expect(unchanged.headers.get('retry-after')).toBeNull();
    expect(unchanged.body.data.leaderboardEntry).toMatchObject({
      userId: banned.userId,
      points: 100 + 50,
      rank: expected,
    });
    const typed = await app.trpc(banned.token).onboardProfile.mutate({});
    expect(typed.data.leaderboardEntry).toMatchObject({ userId: banned.userId, rank: expected });

    const changed = await app.request('POST', '/api/user/profile', {
      token: banned.token,
      body: { name: 'Still Here' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.user.name).toBe('Still Here');
    expect(changed.body.data.leaderboardEntry.rank).toBe(expected);
    const typedChange = await app.trpc(banned.token).onboardProfile.mutate({ name: 'Typed' });
    expect(typedChange.data.user.name).toBe('Typed');

    // Still off every board for everyone else.
    const board = await app.request('GET', '/api/leaderboard?limit=100', { token: below.token });
    const ids = board.body.data.entries.map((e: any) => e.userId);
    expect(ids).toContain(above.userId);
    expect(ids).not.toContain(banned.userId);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('onboards for the first time while banned, then repeats it, on both faces', async () => {
    const subject = uniqueSubject('early');
    const sent = await app.request('POST', '/api/events', {
      token: await app.serviceToken('predict-service'),
      body: { events: [{ id: `${subject}-1`, subject, type: 'prediction_correct' }] },
    });
    expect(sent.status, sent.text).toBe(200);
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM users WHERE subject = ${subject}`.execute(app.db);
    const userId = rows[0]!.id;
    await ban(userId, true);

    const token = await app.token(subject);
    const first = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(first.status, first.text).toBe(201);
    const expected = await wouldStand(userId);
    expect(first.body.data.leaderboardEntry).toMatchObject({ userId, points: 125, rank: expected });
    for (let i = 0; i < 2; i += 1) {
      const again = await app.request('POST', '/api/user/profile', { token, body: {} });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data.leaderboardEntry).toMatchObject({ userId, rank: expected });
    }
    const typed = await app.trpc(token).onboardProfile.mutate({});
    expect(typed.data.leaderboardEntry.rank).toBe(expected);

    // Unbanned, the same call shows the entry counted again, at the same place.
    await ban(userId, false);
    const unbanned = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(unbanned.status).toBe(200);
    expect(unbanned.body.data.leaderboardEntry.rank).toBe(expected);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});
