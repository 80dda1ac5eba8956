import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consistencyProblems } from '../../helpers/consistency.js';
import { FACES } from '../../helpers/reads.js';
import { startTestApp, useTestApp, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { writer } from '../../helpers/writes.js';

/** Handle history, the change cooldown and reservations (defaults: 30 and 14 days). */
const { app } = useTestApp();

const newHandle = (prefix = 'h') => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

async function userIdOf(token: string): Promise<string> {
  const me = await app.request('GET', '/api/user', { token });
  return me.body.data.id as string;
}

/** Moves the user's handle history back in time, as if `days` had passed. */
async function age(userId: string, days: number) {
  await app.db
    .updateTable('handleHistory')
    .set({ changedAt: sql<Date>`changed_at - make_interval(days => ${days}::integer)` })
    .where('userId', '=', userId)
    .execute();
}

/** Moves every reservation of a handle back in time, as if `days` had passed. */
async function ageReservation(handle: string, days: number) {
  await app.db
    .updateTable('handleClaims')
    .set({ reservedUntil: sql<Date>`reserved_until - make_interval(days => ${days}::integer)` })
    .where('handleKey', '=', handle.toLowerCase())
    .execute();
}

describe.each(FACES)(`handle changes over %s on ${testDbKind}`, (face) => {
  const write = () => writer(app, face);

  it('records every change; the first handle is free, the next change starts a 30-day cooldown', async () => {
    const token = await app.token();
    const [a, b, c] = [newHandle(), newHandle(), newHandle()];
    expect((await write()('updateUser', token, { handle: a })).ok).toBe(true);
    const changed = await write()('updateUser', token, { handle: b });
    expect(changed).toMatchObject({ ok: true, data: { handle: b } });

    const refused = await write()('updateUser', token, { handle: c, name: 'Not written' });
    const userId = await userIdOf(token);
    const [change] = await app.db
      .selectFrom('handleHistory')
      .select('changedAt')
      .where('userId', '=', userId)
      .where('kind', '=', 'change')
      .execute();
    const retryAt = new Date(change!.changedAt.getTime() + 30 * 86_400_000).toISOString();
    expect(refused).toEqual({
      ok: false,
      status: 409,
      code: 'HANDLE_CHANGE_COOLDOWN',
      message: `You changed your handle recently: the next change is allowed from ${retryAt}`,
      issues: [{ path: 'handle', message: 'Handle changes are on cooldown' }],
      retryAt,
    });
    // Nothing of the refused write landed.
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data).toMatchObject({ handle: b, name: null });

    // Onboarding is held to the same cooldown.
    const onboarding = await write()('onboardProfile', token, { handle: c });
    expect(onboarding).toMatchObject({ ok: false, status: 409, code: 'HANDLE_CHANGE_COOLDOWN' });

    // A change of letter case only is not a new handle: allowed, and recorded.
    const recased = await write()('updateUser', token, { handle: b.toUpperCase() });
    expect(recased).toMatchObject({ ok: true, data: { handle: b.toUpperCase() } });

    const history = await app.db
      .selectFrom('handleHistory')
      .select(['oldHandle', 'newHandle', 'kind'])
      .where('userId', '=', userId)
      .orderBy('id')
      .execute();
    expect(history).toEqual([
      { oldHandle: null, newHandle: a, kind: 'first' },
      { oldHandle: a, newHandle: b, kind: 'change' },
      { oldHandle: b, newHandle: b.toUpperCase(), kind: 'recase' },
    ]);
  });

  it('allows the next change once the cooldown has passed', async () => {
    const token = await app.token();
    const [a, b, c] = [newHandle(), newHandle(), newHandle()];
    await write()('updateUser', token, { handle: a });
    await write()('updateUser', token, { handle: b });
    const userId = await userIdOf(token);
    await age(userId, 29);
    expect(await write()('updateUser', token, { handle: c })).toMatchObject({
      ok: false,
      code: 'HANDLE_CHANGE_COOLDOWN',
    });
    await age(userId, 1);
    expect(await write()('updateUser', token, { handle: c })).toMatchObject({
      ok: true,
      data: { handle: c },
    });
  });

  it('reserves a given-up handle for its previous owner, who may take it back', async () => {
    const owner = await app.token();
    const other = await app.token();
    const [a, b] = [newHandle(), newHandle()];
    await write()('updateUser', owner, { handle: a });
    await write()('updateUser', owner, { handle: b });

    for (const attempt of [a, a.toUpperCase()]) {
      const taken = await write()('updateUser', other, { handle: attempt });
      expect(taken).toMatchObject({ ok: false, status: 409, code: 'HANDLE_TAKEN' });
    }
    expect(await write()('onboardProfile', other, { handle: a })).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
    });

    // Taking it back is a change too: after the cooldown.
    await age(await userIdOf(owner), 30);
    const back = await write()('updateUser', owner, { handle: a });
    expect(back).toMatchObject({ ok: true, data: { handle: a } });
    // …and now b is reserved for the owner.
    expect(await write()('updateUser', other, { handle: b })).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
    });
  });

  it('frees a reservation after 14 days', async () => {
    const owner = await app.token();
    const other = await app.token();
    const [a, b] = [newHandle(), newHandle()];
    await write()('updateUser', owner, { handle: a });
    await write()('updateUser', owner, { handle: b });
    await ageReservation(a, 13);
    expect(await write()('updateUser', other, { handle: a })).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
    });
    await ageReservation(a, 1);
    expect(await write()('updateUser', other, { handle: a })).toMatchObject({
      ok: true,
      data: { handle: a },
    });
    // The previous owner lost it with the reservation.
    await age(await userIdOf(owner), 30);
    expect(await write()('updateUser', owner, { handle: a })).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
    });
  });
});

describe(`handle races on ${testDbKind}`, () => {
  it('gives a reserved handle to its owner only, however many race for it', async () => {
    const write = writer(app, 'rest');
    const owner = await app.token();
    const [a, b] = [newHandle(), newHandle()];
    await write('updateUser', owner, { handle: a });
    await write('updateUser', owner, { handle: b });
    await age(await userIdOf(owner), 30);
    const others = await Promise.all(Array.from({ length: 8 }, () => app.token()));
    const results = await Promise.all([
      ...others.map((token) => write('updateUser', token, { handle: a })),
      write('updateUser', owner, { handle: a }),
    ]);
    expect(results.slice(0, -1).every((r) => !r.ok && r.code === 'HANDLE_TAKEN')).toBe(true);
    expect(results.at(-1)).toMatchObject({ ok: true, data: { handle: a } });
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('gives an expired reservation to exactly one of many racing users', async () => {
    const write = writer(app, 'rest');
    const owner = await app.token();
    const [a, b] = [newHandle(), newHandle()];
    await write('updateUser', owner, { handle: a });
    await write('updateUser', owner, { handle: b });
    await ageReservation(a, 14);
    const racers = await Promise.all(Array.from({ length: 10 }, () => app.token()));
    const results = await Promise.all(
      racers.map((token, i) =>
        write(i % 2 ? 'updateUser' : 'onboardProfile', token, { handle: a }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.code === 'HANDLE_TAKEN')).toBe(
      true,
    );
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('lets one of a user’s concurrent changes through; the others meet the cooldown', async () => {
    const write = writer(app, 'rest');
    const token = await app.token();
    await write('updateUser', token, { handle: newHandle() });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => write('updateUser', token, { handle: newHandle() })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(
      results.filter((r) => !r.ok).every((r) => !r.ok && r.code === 'HANDLE_CHANGE_COOLDOWN'),
    ).toBe(true);
    const changes = await app.db
      .selectFrom('handleHistory')
      .select('kind')
      .where('userId', '=', await userIdOf(token))
      .execute();
    expect(changes.map((row) => row.kind).sort()).toEqual(['change', 'first']);
  });
});

describe(`HANDLE_CHANGE_COOLDOWN_DAYS=0 and HANDLE_RESERVE_DAYS=0 on ${testDbKind}`, () => {
  let database: TestDatabase;
  let off: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    off = await startTestApp({
      database,
      env: { HANDLE_CHANGE_COOLDOWN_DAYS: '0', HANDLE_RESERVE_DAYS: '0' },
    });
  });
  afterAll(async () => {
    await off?.close();
    await database?.destroy();
  });

  it('changes handles freely and frees the old one at once', async () => {
    const write = writer(off, 'rest');
    const owner = await off.token();
    const [a, b, c] = [newHandle(), newHandle(), newHandle()];
    for (const handle of [a, b, c]) {
      expect(await write('updateUser', owner, { handle })).toMatchObject({ ok: true });
    }
    expect(await write('updateUser', await off.token(), { handle: a })).toMatchObject({
      ok: true,
      data: { handle: a },
    });
    // b was given up too: reserved until the moment it was given up, i.e. free.
    const [claim] = await off.db
      .selectFrom('handleClaims')
      .selectAll()
      .where('handleKey', '=', b.toLowerCase())
      .execute();
    expect(claim!.reservedUntil!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await write('updateUser', await off.token(), { handle: b })).toMatchObject({ ok: true });
  });
});
