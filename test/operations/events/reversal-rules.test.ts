import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { consistencyProblems } from '../../helpers/consistency.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Two rules of a reversal (docs/ACTIVITY.md, "Reversal"), on the public
 * route of both faces: only the client that sent an event may reverse it
 * there, and a reversal takes back what the event awarded, whatever the
 * type is worth now.
 */
const { app } = useTestApp();

let keyCounter = 0;
function uniqueKey(prefix: string): string {
  keyCounter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${keyCounter}`;
}

/** An onboarded fan: their user id, token and balance after onboarding. */
async function onboardedFan() {
  const subject = uniqueSubject('fan');
  const token = await app.token(subject);
  const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(onboarding.status, onboarding.text).toBe(201);
  return {
    subject,
    token,
    userId: onboarding.body.data.user.id as string,
    balance: onboarding.body.data.user.points as number,
  };
}

async function send(token: string, events: unknown[]) {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

/** The fan's balance, all-time board points and ledger length, and the event's stored row. */
async function stateOf(fan: { token: string }, eventId: string) {
  const me = await app.request('GET', '/api/user', { token: fan.token });
  const board = await app.request('GET', '/api/leaderboard/me', { token: fan.token });
  const ledger = await app.request('GET', '/api/user/points?limit=100', { token: fan.token });
  const { rows } = await sql<{ clientId: string; points: number; reversedAt: Date | null }>`
    SELECT client_id, points, reversed_at FROM activity_events WHERE event_id = ${eventId}`.execute(
    app.db,
  );
  return {
    balance: me.body.data.points as number,
    boardPoints: board.body.data.entry.points as number,
    ledger: ledger.body.data.entries.length as number,
    events: rows,
  };
}

const faces = [
  [
    'REST',
    async (token: string, id: string) => {
      const response = await app.request('POST', '/api/events/reversals', { token, body: { id } });
      return response.status === 200
        ? { ok: true as const, data: response.body.data }
        : { ok: false as const, status: response.status, code: response.body.error.code };
    },
  ],
  [
    'tRPC',
    async (token: string, id: string) => {
      try {
        const answer = await app.trpc(token).reverseEvent.mutate({ id });
        return { ok: true as const, data: answer.data as any };
      } catch (error: any) {
        return { ok: false as const, status: error.data?.httpStatus, code: error.data?.errorCode };
      }
    },
  ],
] as const;

describe.each(faces)('reverseEvent over %s', (_face, reverse) => {
  it('refuses to reverse another client’s event: 404, the balance, board and event unchanged', async () => {
    const fan = await onboardedFan();
    const sender = `sender-${uniqueKey('a')}`;
    const other = `other-${uniqueKey('b')}`;
    const eventId = `${fan.subject}-p`;
    const [recorded] = await send(await app.serviceToken(sender), [
      { id: eventId, subject: fan.subject, type: 'prediction_correct' },
    ]);
    expect(recorded).toMatchObject({ status: 'recorded', points: 25 });
    const before = await stateOf(fan, eventId);
    expect(before.balance).toBe(fan.balance + 25);

    const refused = await reverse(await app.serviceToken(other), eventId);
    expect(refused).toEqual({ ok: false, status: 404, code: 'NOT_FOUND' });
    expect(await stateOf(fan, eventId)).toEqual(before);
    expect(before.events).toEqual([{ clientId: sender, points: 25, reversedAt: null }]);

    // The sender still can, once.
    const reversed = await reverse(await app.serviceToken(sender), eventId);
    expect(reversed).toEqual({
      ok: true,
      data: { id: eventId, status: 'reversed', points: -25, balance: fan.balance },
    });
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('takes back what the event awarded, not what its type is worth now', async () => {
    const admin = await app.serviceToken('ops-console', 'admin');
    const key = uniqueKey('derby_goal');
    const type = { kind: 'event_type', key, title: 'Derby goal', points: 40, maxValue: 1 };
    const created = await app.request('POST', '/api/admin/definitions', {
      token: admin,
      body: { definition: type },
    });
    expect(created.status, created.text).toBe(201);

    const fan = await onboardedFan();
    const service = await app.serviceToken(`scorer-${uniqueKey('c')}`);
    const eventId = `${fan.subject}-goal`;
    const [recorded] = await send(service, [{ id: eventId, subject: fan.subject, type: key }]);
    expect(recorded).toMatchObject({ status: 'recorded', points: 40, balance: fan.balance + 40 });

    for (const [version, points] of [
      [1, 70],
      [2, 5],
    ] as const) {
      const changed = await app.request('PUT', `/api/admin/definitions/event_type/${key}`, {
        token: admin,
        body: { expectedVersion: version, definition: { ...type, points } },
      });
      expect(changed.status, changed.text).toBe(200);
    }

    const reversed = await reverse(service, eventId);
    expect(reversed).toEqual({
      ok: true,
      data: { id: eventId, status: 'reversed', points: -40, balance: fan.balance },
    });
    const after = await stateOf(fan, eventId);
    expect(after.balance).toBe(fan.balance);
    expect(after.boardPoints).toBe(fan.balance);
    const ledger = await app.request('GET', '/api/user/points', { token: fan.token });
    expect(ledger.body.data.entries[0]).toMatchObject({
      delta: -40,
      balanceAfter: fan.balance,
      source: { kind: 'reversal', type: key, eventId },
    });
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});
