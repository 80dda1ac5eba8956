import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MAX_POINTS } from '../../../src/domain/ledger.js';
import { consistencyProblems, fullSortRanks } from '../../helpers/consistency.js';
import { movePoints } from '../../helpers/point-moves.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Balances and boards survive every value the catalog allows (docs/ACTIVITY.md, "Limits"): an
 * event type worth 1,000,000 points takes a fan to MAX_POINTS, past which each award is refused
 * where it enters (an event on its own, an adjustment or a profile write with 409
 * POINTS_LIMIT_REACHED), never a 500; and a batch answers each event, whatever one fan's
 * write does.
 */
const { app, database } = useTestApp();

const JACKPOT = `jackpot_${process.pid}`;

async function admin(method: string, path: string, body?: unknown) {
  return app.request(method, path, { token: await app.serviceToken('ops-console', 'admin'), body });
}

async function send(token: string, events: unknown[]) {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

const jackpots = (subject: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${subject}-j${from + i}`,
    subject,
    type: JACKPOT,
  }));

describe('a fan at the points limit', () => {
  it(
    'reaches it in 20 batches of 1,000,000-point events; the 21st batch answers each event, on both faces',
    { timeout: 180_000 },
    async () => {
      const created = await admin('POST', '/api/admin/definitions', {
        definition: {
          kind: 'event_type',
          key: JACKPOT,
          title: 'Jackpot',
          points: 1_000_000,
          maxValue: 1,
        },
      });
      expect(created.status, created.text).toBe(201);

      const rich = uniqueSubject('rich');
      const richToken = await app.token(rich);
      const onboarding = await app.request('POST', '/api/user/profile', {
        token: richToken,
        body: {},
      });
      expect(onboarding.status, onboarding.text).toBe(201);
      const start = onboarding.body.data.user.points as number; // the onboarding quests
      expect(start).toBeGreaterThan(0);
      expect(start).toBeLessThan(1_000_000);

      const service = await app.serviceToken('jackpot-service');
      // 1,999 events fit (start + 1,999,000,000 ≤ 2,000,000,000); the 2,000th does not.
      let sent = 0;
      for (let batch = 0; batch < 20; batch += 1) {
        const count = Math.min(100, 1_999 - sent);
        const results = await send(service, jackpots(rich, sent, count));
        expect(results.every((r) => r.status === 'recorded')).toBe(true);
        sent += count;
      }
      const top = start + 1_999_000_000;
      const me = await app.request('GET', '/api/user', { token: richToken });
      expect(me.body.data.points).toBe(top);

      // The 21st batch: the rich fan's next event and another fan's, mixed.
      const other = uniqueSubject('other');
      const mixed = [
        { id: `${other}-c1`, subject: other, type: 'match_checkin' },
        ...jackpots(rich, sent, 2),
        { id: `${other}-p1`, subject: other, type: 'prediction_correct' },
      ];
      const answered = await send(service, mixed);
      expect(answered.map((r) => r.error?.code ?? r.status)).toEqual([
        'recorded',
        'POINTS_LIMIT_REACHED',
        'POINTS_LIMIT_REACHED',
        'recorded',
      ]);
      expect(answered[1].error.message).toContain('2,000,000,000');
      expect(answered[3]).toMatchObject({ points: 25, balance: 35 });

      // Sent again with the same ids, as a sender that retries does: it learns every result.
      const resent = await send(service, mixed);
      expect(resent.map((r) => r.error?.code ?? r.status)).toEqual([
        'duplicate',
        'POINTS_LIMIT_REACHED',
        'POINTS_LIMIT_REACHED',
        'duplicate',
      ]);
      expect(resent[3]).toEqual({ ...answered[3], status: 'duplicate' });

      // The same over tRPC.
      const overTrpc = await app.trpc(service).recordEvents.mutate({ events: mixed });
      expect(
        overTrpc.data.results.map((r) => (r.status === 'rejected' ? r.error.code : r.status)),
      ).toEqual(['duplicate', 'POINTS_LIMIT_REACHED', 'POINTS_LIMIT_REACHED', 'duplicate']);

      // Nothing of the refused events was stored; every total is what was awarded.
      const stored = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM activity_events WHERE type = ${JACKPOT}`.execute(app.db);
      expect(stored.rows[0]!.n).toBe('1999');
      expect((await app.request('GET', '/api/user', { token: richToken })).body.data.points).toBe(
        top,
      );
      const week = await app.request('GET', '/api/leaderboard/me?period=week', {
        token: richToken,
      });
      expect(week.body.data.entry).toMatchObject({ points: top, rank: 1 });
      const board = await app.request('GET', '/api/leaderboard/me', { token: richToken });
      expect(board.body.data.entry.rank).toBe(
        (await fullSortRanks(app.db)).get(me.body.data.id)!.global,
      );
      expect(await consistencyProblems(app.db)).toEqual([]);
    },
  );

  it('refuses an adjustment or a profile write past the limit with 409 POINTS_LIMIT_REACHED, on both faces; one to the limit lands', async () => {
    const subject = uniqueSubject('near');
    const token = await app.token(subject);
    const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
    const userId = onboarding.body.data.user.id as string;
    const start = onboarding.body.data.user.points as number;
    // Straight to just under the limit, through the write module as an adjustment would.
    await movePoints(database, userId, {
      key: `${subject}-seed`,
      delta: MAX_POINTS - 1_000 - start,
    });

    const path = `/api/admin/fans/${userId}/adjustments`;
    const past = await admin('POST', path, {
      id: `${subject}-a1`,
      points: 1_001,
      reason: 'Too much',
    });
    expect(past.status, past.text).toBe(409);
    expect(past.body.error).toMatchObject({ code: 'POINTS_LIMIT_REACHED' });
    expect(past.body.error.message).toContain('2,000,000,000');
    const adminClient = app.trpc(await app.serviceToken('ops-console', 'admin'));
    await expect(
      adminClient.adminAdjustPoints.mutate({
        userId,
        id: `${subject}-a2`,
        points: 1_001,
        reason: 'Too much',
      }),
    ).rejects.toMatchObject({ data: { errorCode: 'POINTS_LIMIT_REACHED', httpStatus: 409 } });

    // A profile write whose quest (name_rival, 25) would pass it: refused, nothing written.
    const toLimit = await admin('POST', path, {
      id: `${subject}-a3`,
      points: 990,
      reason: 'Nearly',
    });
    expect(toLimit.status, toLimit.text).toBe(200);
    expect(toLimit.body.data.balance).toBe(MAX_POINTS - 10);
    const patch = await app.request('PATCH', '/api/user', {
      token,
      body: { rivalTeam: 'Rivals FC' },
    });
    expect(patch.status, patch.text).toBe(409);
    expect(patch.body.error.code).toBe('POINTS_LIMIT_REACHED');
    await expect(
      app.trpc(token).updateUser.mutate({ rivalTeam: 'Rivals FC' }),
    ).rejects.toMatchObject({
      data: { errorCode: 'POINTS_LIMIT_REACHED', httpStatus: 409 },
    });
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data).toMatchObject({ rivalTeam: null, points: MAX_POINTS - 10 });
    // A write that awards nothing still works.
    expect(
      (await app.request('PATCH', '/api/user', { token, body: { name: 'Near' } })).status,
    ).toBe(200);

    // Exactly to the limit lands.
    const exact = await admin('POST', path, { id: `${subject}-a4`, points: 10, reason: 'Exactly' });
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body.data.balance).toBe(MAX_POINTS);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});

describe('a batch whose write fails for one fan', () => {
  it('answers that fan’s events on their own and records the others; a resend learns every result', async () => {
    const poisoned = uniqueSubject('poisoned');
    const healthy = uniqueSubject('healthy');
    // The test's own fault: any write of the poisoned fan's event fails inside the database.
    const trigger = `poison_${process.pid}`;
    await sql`CREATE FUNCTION ${sql.id(trigger)}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event_id LIKE '%poisoned%' THEN RAISE EXCEPTION 'injected fault'; END IF;
        RETURN NEW;
      END $$`.execute(app.db);
    await sql`CREATE TRIGGER ${sql.id(trigger)} BEFORE INSERT ON activity_events
      FOR EACH ROW EXECUTE FUNCTION ${sql.id(trigger)}()`.execute(app.db);
    const service = await app.serviceToken('fault-service');
    const batch = [
      { id: `${poisoned}-1`, subject: poisoned, type: 'prediction_correct' },
      { id: `${healthy}-1`, subject: healthy, type: 'prediction_correct' },
      { id: `${poisoned}-2`, subject: poisoned, type: 'match_checkin' },
    ];
    try {
      const results = await send(service, batch);
      expect(results.map((r) => r.error?.code ?? r.status)).toEqual([
        'INTERNAL',
        'recorded',
        'INTERNAL',
      ]);
      expect(results[0].error.message).not.toContain('injected');
      expect(app.logs.some((line) => line.includes('injected fault'))).toBe(true);
      const again = await send(service, batch);
      expect(again.map((r) => r.error?.code ?? r.status)).toEqual([
        'INTERNAL',
        'duplicate',
        'INTERNAL',
      ]);
    } finally {
      await sql`DROP TRIGGER ${sql.id(trigger)} ON activity_events`.execute(app.db);
      await sql`DROP FUNCTION ${sql.id(trigger)}()`.execute(app.db);
    }
    // Once the fault is gone, the same batch records what was not recorded.
    const healed = await send(service, batch);
    expect(healed.map((r) => r.status)).toEqual(['recorded', 'duplicate', 'recorded']);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});
