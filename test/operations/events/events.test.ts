import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { consistencyProblems } from '../../helpers/consistency.js';
import { startOtherInstance, uniqueSubject, useTestApp } from '../../helpers/test-app.js';

const { app, database } = useTestApp();

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

describe('a reversal and the quest its event completed', () => {
  it('keeps the completion and its award, compensates the event with a reversal entry, and lowers the progress', async () => {
    const clientId = 'news-service';
    const service = await app.serviceToken(clientId);
    const fan = uniqueSubject('fan');
    const token = await app.token(fan);
    expect((await app.request('POST', '/api/user/profile', { token, body: {} })).status).toBe(201);
    const dailyReader = async () => {
      const quests = await app.request('GET', '/api/user/quests', { token });
      expect(quests.status, quests.text).toBe(200);
      return quests.body.data.quests.find((q: any) => q.id === 'daily_reader');
    };

    // Three articles in one event complete the daily reader quest (10 points).
    const [read] = await send(service, [
      { id: `${fan}-read`, subject: fan, type: 'article_read', value: 3 },
    ]);
    expect(read).toMatchObject({
      status: 'recorded',
      points: 3,
      balance: 113,
      questsCompleted: [{ id: 'daily_reader', period: expect.any(String), tier: 1, points: 10 }],
    });
    const completed = await dailyReader();
    expect(completed).toMatchObject({
      status: 'completed',
      progress: 3,
      tiersReached: 1,
      completedAt: expect.any(String),
    });

    const reversal = await app.request('POST', '/api/events/reversals', {
      token: service,
      body: { id: `${fan}-read` },
    });
    expect(reversal.status, reversal.text).toBe(200);
    expect(reversal.body.data).toEqual({
      id: `${fan}-read`,
      status: 'reversed',
      points: -3,
      balance: 110,
    });

    // The completion stays (with when it happened); the progress falls back.
    expect(await dailyReader()).toEqual({
      ...completed,
      progress: 0,
      status: 'completed',
      tiersReached: 1,
      completedAt: completed.completedAt,
    });
    const me = await app.request('GET', '/api/user/points', { token });
    expect(me.status, me.text).toBe(200);
    const entries = me.body.data.entries as any[];
    expect(entries.map((e) => [e.delta, e.source, e.balanceAfter])).toEqual([
      [-3, { kind: 'reversal', type: 'article_read', clientId, eventId: `${fan}-read` }, 110],
      [10, { kind: 'quest', questId: 'daily_reader', period: completed.period, tier: 1 }, 113],
      [3, { kind: 'event', type: 'article_read', clientId, eventId: `${fan}-read` }, 103],
      [100, { kind: 'quest', questId: 'welcome', period: null, tier: 1 }, 100],
    ]);
    // Balance = Σ ledger, on the user, the boards and the ledger's own running sum.
    expect(entries.reduce((total, e) => total + e.delta, 0)).toBe(110);
    expect((await app.request('GET', '/api/user', { token })).body.data.points).toBe(110);
    const board = await app.request('GET', '/api/leaderboard/me', { token });
    expect(board.body.data.entry.points).toBe(110);

    // From the fallen progress the quest is never awarded again in its period.
    const [again] = await send(service, [
      { id: `${fan}-read-2`, subject: fan, type: 'article_read', value: 3 },
    ]);
    expect(again).toMatchObject({
      status: 'recorded',
      points: 3,
      balance: 113,
      questsCompleted: [],
    });
    expect(await dailyReader()).toMatchObject({
      status: 'completed',
      progress: 3,
      tiersReached: 1,
    });
    expect(await consistencyProblems(database.db)).toEqual([]);
  });
});

describe('POST /api/events on two instances at once', () => {
  /** A second instance on the same database and identity provider. */
  const secondInstance = () => startOtherInstance(database, { issuer: app.issuer });

  it('records the same event once when both instances receive it together', async () => {
    const second = await secondInstance();
    try {
      const service = await app.serviceToken('twice-service');
      const fan = uniqueSubject('fan');
      const events = Array.from({ length: 10 }, (_, i) => ({
        id: `${fan}-same-${i}`,
        subject: fan,
        type: 'prediction_correct',
      }));
      const answers = await Promise.all(
        [app, second, app, second].map((instance) =>
          instance.request('POST', '/api/events', { token: service, body: { events } }),
        ),
      );
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      for (let i = 0; i < events.length; i += 1) {
        const statuses = answers.map((answer) => answer.body.data.results[i].status).sort();
        expect(statuses).toEqual(['duplicate', 'duplicate', 'duplicate', 'recorded']);
        // Every answer is the one result the event had.
        const balances = new Set(answers.map((answer) => answer.body.data.results[i].balance));
        expect(balances.size).toBe(1);
      }
      const token = await app.token(fan);
      expect((await app.request('GET', '/api/user', { token })).body.data.points).toBe(250);
      const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM points_ledger l JOIN users u ON u.id = l.user_id
        WHERE u.subject = ${fan}`.execute(database.db);
      expect(Number(rows[0]!.n)).toBe(10);
    } finally {
      await second.close();
    }
  });

  it('holds a cap exactly under a storm of concurrent check-ins on both instances', async () => {
    const second = await secondInstance();
    try {
      const services = [await app.serviceToken('storm-a'), await app.serviceToken('storm-b')];
      const fan = uniqueSubject('fan');
      const sends = Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? app : second).request('POST', '/api/events', {
          token: services[i % 2]!,
          body: { events: [{ id: `${fan}-storm-${i}`, subject: fan, type: 'match_checkin' }] },
        }),
      );
      const results = (await Promise.all(sends)).map((answer) => {
        expect(answer.status, answer.text).toBe(200);
        return answer.body.data.results[0];
      });
      expect(results.filter((r) => r.status === 'recorded')).toHaveLength(5);
      const capped = results.filter((r) => r.status === 'rejected');
      expect(capped).toHaveLength(7);
      for (const r of capped) expect(r.error.code).toBe('CAP_REACHED');
      const token = await app.token(fan);
      // Five check-ins, and the weekly quest of two (30).
      expect((await app.request('GET', '/api/user', { token })).body.data.points).toBe(80);
    } finally {
      await second.close();
    }
  });

  it('reverses exactly once while new events for the fan keep arriving', async () => {
    const second = await secondInstance();
    try {
      const service = await app.serviceToken('race-service');
      const fan = uniqueSubject('fan');
      const token = await app.token(fan);
      await app.request('POST', '/api/user/profile', { token, body: {} });
      await send(service, [{ id: `${fan}-target`, subject: fan, type: 'prediction_correct' }]);
      const work = [
        ...Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? app : second).request('POST', '/api/events', {
            token: service,
            body: { events: [{ id: `${fan}-more-${i}`, subject: fan, type: 'article_read' }] },
          }),
        ),
        app.request('POST', '/api/events/reversals', {
          token: service,
          body: { id: `${fan}-target` },
        }),
        second.request('POST', '/api/events/reversals', {
          token: service,
          body: { id: `${fan}-target` },
        }),
      ];
      const answers = await Promise.all(work);
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      const reversals = answers
        .slice(6)
        .map((answer) => answer.body.data.status)
        .sort();
      expect(reversals).toEqual(['already_reversed', 'reversed']);
      // 100 onboarding + 6 articles + 10 for the daily reader quest (3 articles): the reversed 25 is gone.
      const me = await app.request('GET', '/api/user', { token });
      expect(me.body.data.points).toBe(116);
      const ledger = await app.request('GET', '/api/user/points?limit=100', { token });
      const sum = ledger.body.data.entries.reduce((total: number, e: any) => total + e.delta, 0);
      expect(sum).toBe(116);
      expect(
        ledger.body.data.entries.filter((e: any) => e.source.kind === 'reversal'),
      ).toHaveLength(1);
      // Every invariant, over every fan this file has written.
      expect(await consistencyProblems(database.db)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe('POST /api/events limits', () => {
  it('reads a full batch of 100 events over 16 KiB, and refuses a body over 256 KiB with 413', async () => {
    const service = await app.serviceToken('big-service');
    const fan = uniqueSubject('fan');
    const long = (i: number) => `${fan}-${'x'.repeat(100)}-${i}`.slice(0, 128);
    const events = Array.from({ length: 100 }, (_, i) => ({
      id: long(i),
      subject: fan,
      type: 'article_read',
    }));
    expect(JSON.stringify({ events }).length).toBeGreaterThan(16 * 1024);
    const results = await send(service, events);
    expect(results.filter((r) => r.status === 'recorded')).toHaveLength(20);
    const huge = await app.request('POST', '/api/events', {
      token: service,
      rawBody: JSON.stringify({ events, padding: 'p'.repeat(260 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is larger than 256 KiB',
    });
    // Other operations keep the contract's 16 KiB.
    const patch = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      rawBody: JSON.stringify({ name: 'n'.repeat(20 * 1024) }),
    });
    expect(patch.status).toBe(413);
  });

  it.each([
    ['an empty batch', { events: [] }, 'events'],
    [
      '101 events',
      { events: Array.from({ length: 101 }, (_, i) => ({ id: `e${i}`, subject: 's', type: 't' })) },
      'events',
    ],
    ['an id with a space', { events: [{ id: 'a b', subject: 's', type: 't' }] }, 'events.0.id'],
    [
      'an id over 128 characters',
      { events: [{ id: 'x'.repeat(129), subject: 's', type: 't' }] },
      'events.0.id',
    ],
    ['an empty subject', { events: [{ id: 'a', subject: '', type: 't' }] }, 'events.0.subject'],
    [
      'a subject with a control character',
      { events: [{ id: 'a', subject: 'x\u0000y', type: 't' }] },
      'events.0.subject',
    ],
    [
      'an unknown key',
      { events: [{ id: 'a', subject: 's', type: 't', points: 5 }] },
      'events.0.points',
    ],
    [
      'a malformed occurredAt',
      { events: [{ id: 'a', subject: 's', type: 't', occurredAt: 'yesterday' }] },
      'events.0.occurredAt',
    ],
  ])('refuses %s with 400 and records nothing', async (_name, body, path) => {
    const service = await app.serviceToken('bad-batch');
    const response = await app.request('POST', '/api/events', { token: service, body });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.issues.map((i: any) => i.path)).toContain(path);
  });

  it('is served to typed tRPC clients the same way', async () => {
    const service = await app.serviceToken('trpc-service');
    const fan = uniqueSubject('fan');
    const client = app.trpc(service);
    const recorded = await client.recordEvents.mutate({
      events: [{ id: `${fan}-t`, subject: fan, type: 'match_checkin' }],
    });
    expect(recorded.data.results[0]).toMatchObject({ status: 'recorded', points: 10 });
    const reversed = await client.reverseEvent.mutate({ id: `${fan}-t` });
    expect(reversed.data).toEqual({ id: `${fan}-t`, status: 'reversed', points: -10, balance: 0 });
  });
});
