import { describe, expect, it } from 'vitest';
import { uniqueSubject, useTestApp } from '../helpers/test-app.js';

const { app } = useTestApp();

/** POST /api/events as a service, asserting the envelope of a 200. */
async function send(token: string, events: unknown[]) {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

describe('POST /api/events', () => {
  it('awards a new fan, keeps the points before onboarding and puts them on the boards at onboarding', async () => {
    const service = await app.serviceToken('checkin-service');
    const fan = uniqueSubject('fan');
    const results = await send(service, [
      { id: `${fan}-c1`, subject: fan, type: 'match_checkin' },
      { id: `${fan}-p1`, subject: fan, type: 'prediction_correct' },
      { id: `${fan}-r1`, subject: fan, type: 'article_read', value: 3 },
    ]);
    expect(results).toEqual([
      {
        id: `${fan}-c1`,
        status: 'recorded',
        points: 10,
        balance: 10,
        questsCompleted: [],
        reversed: false,
      },
      {
        id: `${fan}-p1`,
        status: 'recorded',
        points: 25,
        balance: 35,
        questsCompleted: [],
        reversed: false,
      },
      {
        id: `${fan}-r1`,
        status: 'recorded',
        points: 3,
        balance: 48,
        questsCompleted: [{ id: 'daily_reader', period: expect.any(String), tier: 1, points: 10 }],
        reversed: false,
      },
    ]);

    const token = await app.token(fan);
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data).toMatchObject({ points: 48, onboardedAt: null });
    const ledger = await app.request('GET', '/api/user/points', { token });
    expect(
      ledger.body.data.entries.map((e: any) => [e.delta, e.source.kind, e.balanceAfter]),
    ).toEqual([
      [10, 'quest', 48],
      [3, 'event', 38],
      [25, 'event', 35],
      [10, 'event', 10],
    ]);
    expect(ledger.body.data.entries[1].source).toEqual({
      kind: 'event',
      type: 'article_read',
      clientId: 'checkin-service',
      eventId: `${fan}-r1`,
    });
    expect((await app.request('GET', '/api/leaderboard/me', { token })).status).toBe(404);

    const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
    expect(onboarding.status).toBe(201);
    expect(onboarding.body.data.user.points).toBe(148);
    expect(onboarding.body.data.leaderboardEntry.points).toBe(148);
    const week = await app.request('GET', '/api/leaderboard/me?period=week', { token });
    expect(week.body.data.entry.points).toBe(148);
  });

  it('records each id once: a resend answers the original result, a changed body is rejected', async () => {
    const service = await app.serviceToken('predict-service');
    const fan = uniqueSubject('fan');
    const event = { id: `${fan}-1`, subject: fan, type: 'prediction_correct' };
    const [first] = await send(service, [event]);
    const again = await send(service, [event, event, { ...event, value: 2 }]);
    expect(again[0]).toEqual({ ...first, status: 'duplicate' });
    expect(again[1]).toEqual({ ...first, status: 'duplicate' });
    expect(again[2]).toMatchObject({ status: 'rejected', error: { code: 'EVENT_ID_REUSED' } });
    // The same id from another client is another event.
    const other = await send(await app.serviceToken('quiz-service'), [event]);
    expect(other[0]).toMatchObject({ status: 'recorded', balance: 50 });
  });

  it('rejects per event what the catalog does not allow, and records the rest', async () => {
    const service = await app.serviceToken('mixed-service');
    const fan = uniqueSubject('fan');
    const old = new Date(Date.now() - 8 * 86_400_000).toISOString();
    const results = await send(service, [
      { id: 'a', subject: fan, type: 'no_such_type' },
      { id: 'b', subject: fan, type: 'article_read', value: 0 },
      { id: 'c', subject: fan, type: 'match_checkin', occurredAt: old },
      { id: 'd', subject: fan, type: 'match_checkin' },
    ]);
    expect(results.map((r) => r.error?.code ?? r.status)).toEqual([
      'UNKNOWN_EVENT_TYPE',
      'INVALID_VALUE',
      'OCCURRED_AT_OUT_OF_RANGE',
      'recorded',
    ]);
  });

  it('caps check-ins at 5 per fan per day, the sixth rejected whole', async () => {
    const service = await app.serviceToken('checkin-service');
    const fan = uniqueSubject('fan');
    const results = await send(
      service,
      Array.from({ length: 7 }, (_, i) => ({
        id: `${fan}-cap-${i}`,
        subject: fan,
        type: 'match_checkin',
      })),
    );
    expect(results.map((r) => r.status)).toEqual([
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'rejected',
      'rejected',
    ]);
    expect(results[5].error.code).toBe('CAP_REACHED');
  });

  it('refuses fan tokens', async () => {
    const response = await app.request('POST', '/api/events', {
      token: await app.token(),
      body: { events: [{ id: 'x', subject: 'y', type: 'match_checkin' }] },
    });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('reverses an event once: the balance and boards follow, the ledger keeps both entries', async () => {
    const service = await app.serviceToken('reverse-service');
    const fan = uniqueSubject('fan');
    const token = await app.token(fan);
    await app.request('POST', '/api/user/profile', { token, body: {} });
    await send(service, [{ id: `${fan}-p`, subject: fan, type: 'prediction_correct' }]);
    const reversal = await app.request('POST', '/api/events/reversals', {
      token: service,
      body: { id: `${fan}-p` },
    });
    expect(reversal.status, reversal.text).toBe(200);
    expect(reversal.body.data).toEqual({
      id: `${fan}-p`,
      status: 'reversed',
      points: -25,
      balance: 100,
    });
    const again = await app.request('POST', '/api/events/reversals', {
      token: service,
      body: { id: `${fan}-p` },
    });
    expect(again.body.data).toMatchObject({ status: 'already_reversed', points: 0, balance: 100 });
    const week = await app.request('GET', '/api/leaderboard/me?period=week', { token });
    expect(week.body.data.entry.points).toBe(100);
    const resend = await send(service, [
      { id: `${fan}-p`, subject: fan, type: 'prediction_correct' },
    ]);
    expect(resend[0]).toMatchObject({ status: 'duplicate', reversed: true, points: 25 });
    const missing = await app.request('POST', '/api/events/reversals', {
      token: service,
      body: { id: 'nope' },
    });
    expect(missing.status).toBe(404);
  });
});
