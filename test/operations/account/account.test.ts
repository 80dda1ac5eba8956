import { randomUUID } from 'node:crypto';
import { Migrator, sql, type Kysely } from 'kysely';
import { migrations } from '../../../db/migrations/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOMBSTONE_ISSUER } from '../../../db/queries/accounts.js';
import { ensureUser, findUser } from '../../../db/queries/users.js';
import { deleteAccount } from '../../../src/services/deletion.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { FACES, reader } from '../../helpers/reads.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { writer, type WriteProcedure } from '../../helpers/writes.js';

/** GET /api/user/export and DELETE /api/user (docs/ACCOUNT.md). */
const { app } = useTestApp();

const newHandle = (prefix = 'h') => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** Calls exportAccount over either face, with the shape reader() gives. */
function exporter(face: 'rest' | 'trpc') {
  return async (token: string) => {
    if (face === 'rest') {
      const response = await app.request('GET', '/api/user/export', { token });
      return { status: response.status, body: response.body };
    }
    const result = await app.trpc(token).exportAccount.query();
    return { status: 200, body: result };
  };
}

describe.each(FACES)(`GET /api/user/export over %s on ${testDbKind}`, (face) => {
  const write = () => writer(app, face);
  const exportOf = exporter(face);

  it('exports a new user: identity, empty profile, no ledger, no boards', async () => {
    const subject = uniqueSubject();
    const token = await app.issuer.sign(subject);
    const { status, body } = await exportOf(token);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      identity: { issuer: app.issuer.issuer, subject },
      user: { handle: null, points: 0, onboardedAt: null },
      handleHistory: [],
      handleReservations: [],
      pointsLedger: { balance: 0, entries: [] },
      boards: [],
    });
    expect(body.data.quests.map((quest: { id: string }) => quest.id)).toContain('welcome');
    expect(Date.parse(body.data.exportedAt)).not.toBeNaN();
  });

  it('exports everything held: profile, handle history and reservations, the whole ledger, quests, board rank', async () => {
    const token = await app.token();
    const [a, b] = [newHandle(), newHandle()];
    await write()('updateUser', token, { handle: a, name: 'Exported', favoriteTeam: 'Ajax' });
    await write()('onboardProfile', token, { handle: b });
    await write()('updateUser', token, { rivalTeam: 'PSV' });
    const { body } = await exportOf(token);
    const data = body.data;
    const me = (await app.request('GET', '/api/user', { token })).body.data;
    expect(data.user).toEqual(me);
    expect(data.handleHistory).toEqual([
      { oldHandle: null, newHandle: a, kind: 'first', changedAt: expect.any(String) },
      { oldHandle: a, newHandle: b, kind: 'change', changedAt: expect.any(String) },
    ]);
    expect(data.handleReservations).toEqual([
      { handle: a.toLowerCase(), reservedUntil: expect.any(String) },
    ]);
    // The whole ledger, oldest first, exactly the stored rows.
    const rows = await app.db
      .selectFrom('pointsLedger')
      .select(['id', 'delta', 'questId'])
      .where('userId', '=', me.id)
      .orderBy('id')
      .execute();
    expect(rows.length).toBe(4); // welcome, claim_handle, pick_team, name_rival
    expect(data.pointsLedger.entries.map((e: { id: string }) => e.id)).toEqual(
      rows.map((row) => String(row.id)),
    );
    expect(data.pointsLedger.balance).toBe(me.points);
    expect(data.quests.find((q: { id: string }) => q.id === 'name_rival')).toMatchObject({
      status: 'completed',
    });
    const around = await reader(app, face)('leaderboardAroundMe', token, { radius: 0 });
    // All-time first, then this week's and this month's boards (all points were earned now).
    const week = await reader(app, face)('leaderboardAroundMe', token, {
      radius: 0,
      period: 'week',
    });
    const month = await reader(app, face)('leaderboardAroundMe', token, {
      radius: 0,
      period: 'month',
    });
    expect(around.ok && week.ok && month.ok).toBe(true);
    if (!around.ok || !week.ok || !month.ok) return;
    expect(data.boards).toEqual([
      { period: 'all', season: null, points: me.points, rank: around.data.entry.rank },
      { period: 'week', season: week.data.season, points: me.points, rank: week.data.entry.rank },
      {
        period: 'month',
        season: month.data.season,
        points: me.points,
        rank: month.data.entry.rank,
      },
    ]);
  });
});

describe.each(FACES)(`DELETE /api/user over %s on ${testDbKind}`, (face) => {
  const write = () => writer(app, face);

  it('erases the account; the ledger stays, pseudonymised; its handles are free for anyone at once', async () => {
    const subject = uniqueSubject();
    const token = await app.issuer.sign(subject);
    const [a, b] = [newHandle(), newHandle()];
    await write()('updateUser', token, { handle: a });
    const onboarded = await write()('onboardProfile', token, { handle: b, favoriteTeam: 'Ajax' });
    expect(onboarded.ok).toBe(true);
    const userId: string = onboarded.ok && onboarded.data.user.id;
    const ledgerBefore = await app.db
      .selectFrom('pointsLedger')
      .select(['id', 'delta', 'reason', 'questId', 'idempotencyKey', 'balanceAfter', 'createdAt'])
      .where('userId', '=', userId)
      .orderBy('id')
      .execute();
    expect(ledgerBefore.length).toBeGreaterThan(0);

    const deleted = await write()('deleteAccount', token);
    expect(deleted).toEqual({
      ok: true,
      status: 200,
      data: { deleted: true, deletedAt: expect.any(String) },
    });

    // Nothing points at the old id any more.
    for (const table of [
      'users',
      'profiles',
      'userQuests',
      'leaderboardEntries',
      'handleHistory',
      'handleClaims',
      'pointsLedger',
    ] as const) {
      const column = table === 'users' ? 'id' : 'userId';
      const rows = await app.db
        .selectFrom(table)
        .select(sql<number>`count(*)`.as('n'))
        .where(column, '=', userId)
        .executeTakeFirstOrThrow();
      expect(Number(rows.n), table).toBe(0);
    }
    // The ledger rows are all there, unchanged but for their owner: one tombstone.
    const moved = await app.db
      .selectFrom('pointsLedger as l')
      .innerJoin('users as u', 'u.id', 'l.userId')
      .select([
        'l.id',
        'l.delta',
        'l.reason',
        'l.questId',
        'l.idempotencyKey',
        'l.balanceAfter',
        'l.createdAt',
        'u.id as owner',
        'u.issuer',
        'u.subject',
        'u.deletedAt',
      ])
      .where(
        'l.id',
        'in',
        ledgerBefore.map((row) => row.id),
      )
      .orderBy('l.id')
      .execute();
    expect(
      moved.map(({ owner: _o, issuer: _i, subject: _s, deletedAt: _d, ...row }) => row),
    ).toEqual(ledgerBefore);
    expect(new Set(moved.map((row) => row.owner)).size).toBe(1);
    // A tombstone is timeless: no time of the deletion is stored.
    expect(moved[0]).toMatchObject({ issuer: TOMBSTONE_ISSUER, deletedAt: new Date(0) });
    expect(moved[0]!.subject).not.toBe(subject);
    expect(moved[0]!.owner).not.toBe(userId);

    // Both handles (held, and given up but reserved for the user) are free at once: a
    // reservation for nobody would be a free lock on a name (claim, delete, repeat).
    const claims = await app.db
      .selectFrom('handleClaims')
      .selectAll()
      .where('handleKey', 'in', [a.toLowerCase(), b.toLowerCase()])
      .execute();
    expect(claims).toEqual([]);
    const other = await app.token();
    expect(await write()('updateUser', other, { handle: b })).toMatchObject({
      ok: true,
      data: { handle: b },
    });

    // The same identity starts as a new, empty user, and may take the other one like anyone.
    const again = await reader(app, face)('me', token);
    expect(again).toMatchObject({
      ok: true,
      data: { handle: null, points: 0, onboardedAt: null, name: null },
    });
    expect(again.ok && again.data.id).not.toBe(userId);
    expect(await write()('updateUser', token, { handle: b })).toMatchObject({
      ok: false,
      code: 'HANDLE_TAKEN',
    });
    expect(await write()('updateUser', token, { handle: a })).toMatchObject({
      ok: true,
      data: { handle: a },
    });
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('does no harm when repeated, also for a user who never wrote anything', async () => {
    const token = await app.token();
    await write()('onboardProfile', token, { name: 'Twice' });
    const first = await write()('deleteAccount', token);
    const second = await write()('deleteAccount', token);
    expect(first).toMatchObject({ ok: true, data: { deleted: true } });
    expect(second).toMatchObject({ ok: true, data: { deleted: true } });
    expect(await write()('deleteAccount', await app.token())).toMatchObject({ ok: true });
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('takes the user off the leaderboard', async () => {
    const token = await app.token();
    const handle = newHandle();
    const team = `Deleted FC ${randomUUID().slice(0, 8)}`;
    await write()('onboardProfile', token, { handle, favoriteTeam: team });
    const board = async () =>
      (await reader(app, face)('leaderboard', await app.token(), { team })) as {
        ok: true;
        data: { entries: unknown[] };
      };
    // A second fan behind the first: rank 2, and rank 1 once the first is gone.
    const second = await app.token();
    await write()('onboardProfile', second, { favoriteTeam: team });
    const rankOf = async () => {
      const me = await reader(app, face)('leaderboardAroundMe', second, { team });
      return me.ok ? me.data.entry.rank : undefined;
    };
    expect((await board()).data.entries).toHaveLength(2);
    expect(await rankOf()).toBe(2);
    await write()('deleteAccount', token);
    expect((await board()).data.entries).toHaveLength(1);
    expect(await rankOf()).toBe(1);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });

  it('cannot be used to lock a handle: claim, delete, repeat leaves every handle free', async () => {
    const squatter = await app.issuer.sign(uniqueSubject('squatter'));
    const wanted = [newHandle('w'), newHandle('w'), newHandle('w')];
    for (const handle of wanted) {
      expect(await write()('updateUser', squatter, { handle })).toMatchObject({ ok: true });
      expect(await write()('deleteAccount', squatter)).toMatchObject({ ok: true });
    }
    for (const handle of wanted) {
      expect(await write()('updateUser', await app.token(), { handle })).toMatchObject({
        ok: true,
        data: { handle },
      });
    }
  });
});

/**
 * Every stored time (any timestamptz column of any table) that falls within
 * [from, to], or a whole number of days after it (a reservation's end), with
 * its table and column.
 */
async function timesWithin(from: Date, to: Date) {
  const { rows: columns } = await sql<{ table: string; column: string }>`
    SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
    WHERE table_schema = 'public' AND data_type = 'timestamp with time zone'
    ORDER BY 1, 2`.execute(app.db);
  expect(columns.length).toBeGreaterThan(10);
  const width = (to.getTime() - from.getTime()) / 1000;
  const found: { table: string; column: string; row: unknown }[] = [];
  for (const { table, column } of columns) {
    const { rows } = await sql<{ row: unknown }>`
      SELECT to_jsonb(t) AS row FROM ${sql.table(table)} t,
        LATERAL (SELECT extract(epoch FROM ${sql.ref(`t.${column}`)} - ${from}::timestamptz) AS d) x
      WHERE x.d >= 0 AND x.d <= 400 * 86400 AND mod(x.d, 86400) <= ${width}`.execute(app.db);
    for (const { row } of rows) found.push({ table, column, row });
  }
  return found;
}

describe(`what a deletion leaves behind on ${testDbKind}`, () => {
  it('links nothing back to the account: no stored time ties the deletion to the tombstone or the handles', async () => {
    const token = await app.token();
    const [a, b] = [newHandle(), newHandle()];
    await app.request('PATCH', '/api/user', { token, body: { handle: a } });
    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { handle: b, favoriteTeam: 'Linked FC' },
    });
    const userId: string = onboarded.body.data.user.id;
    const clock = async () =>
      (await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(app.db)).rows[0]!.now;
    const before = await clock();
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
    const after = await clock();

    // The attack: the announcement's time joined with the tombstone's and the handles'.
    const { rows: joined } = await sql`
      SELECT e.payload, t.id AS tombstone, c.handle_key AS handle
      FROM live_events e
      LEFT JOIN users t ON t.deleted_at = e.created_at OR t.created_at = e.created_at
        OR t.updated_at = e.created_at
      LEFT JOIN handle_claims c ON c.updated_at = e.created_at
      WHERE e.type = 'account_deleted' AND e.payload ->> 'userId' = ${userId}`.execute(app.db);
    expect(joined).toEqual([{ payload: { userId }, tombstone: null, handle: null }]);

    // Any time at all: only the announcement itself was stored at the deletion's time.
    const stored = await timesWithin(before, after);
    expect(stored.filter(({ table }) => table !== 'live_events')).toEqual([]);
    expect(stored.map(({ row }) => (row as { type: string }).type)).toEqual(
      stored.map(() => 'account_deleted'),
    );
    // And the old handles are not stored anywhere.
    const claims = await app.db
      .selectFrom('handleClaims')
      .select('handleKey')
      .where('handleKey', 'in', [a.toLowerCase(), b.toLowerCase()])
      .execute();
    expect(claims).toEqual([]);
  });
});

describe(`the migration that unlinks existing deletions on ${testDbKind}`, () => {
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await own?.destroy();
  });

  it('releases handles reserved for nobody, makes tombstones timeless, erases delivered announcements', async () => {
    const migrator = new Migrator({
      db: own.db.withoutPlugins(),
      provider: { getMigrations: async () => migrations },
    });
    const previous = '20261124T0900_webhook_log_outlives_events';
    expect((await migrator.migrateTo(previous)).error).toBeUndefined();
    const raw = own.db.withoutPlugins() as Kysely<any>;
    // What a deletion left before: one transaction's clock everywhere.
    const at = '2026-11-20T10:00:00.123Z';
    const tombstone = randomUUID();
    await raw
      .insertInto('users')
      .values({
        id: tombstone,
        issuer: TOMBSTONE_ISSUER,
        subject: randomUUID(),
        created_at: at,
        updated_at: at,
        deleted_at: at,
      })
      .execute();
    await raw
      .insertInto('handle_claims')
      .values({ handle_key: 'left_behind', user_id: null, reserved_until: '2026-12-04T10:00:00Z' })
      .execute();
    const gone = randomUUID();
    const waiting = randomUUID();
    await raw
      .insertInto('live_events')
      .values([
        {
          type: 'account_deleted',
          payload: JSON.stringify({ userId: gone }),
          webhook_next_at: null,
        },
        { type: 'account_deleted', payload: JSON.stringify({ userId: waiting }) },
      ])
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(
      await raw
        .selectFrom('users')
        .select(['created_at', 'updated_at', 'deleted_at'])
        .where('id', '=', tombstone)
        .execute(),
    ).toEqual([{ created_at: new Date(0), updated_at: new Date(0), deleted_at: new Date(0) }]);
    expect(await raw.selectFrom('handle_claims').selectAll().execute()).toEqual([]);
    const announcements = await raw
      .selectFrom('live_events')
      .select(sql<string>`payload ->> 'userId'`.as('userId'))
      .where('type', '=', 'account_deleted')
      .execute();
    expect(announcements).toEqual([{ userId: waiting }]);
    // A claim always has a holder now.
    await expect(
      raw.insertInto('handle_claims').values({ handle_key: 'nobody', user_id: null }).execute(),
    ).rejects.toThrow(/null/);
  });
});

async function lastEventId(): Promise<bigint> {
  const row = await app.db
    .selectFrom('liveEvents')
    .select(sql<string>`coalesce(max(id), 0)::text`.as('id'))
    .executeTakeFirstOrThrow();
  return BigInt(row.id);
}

/** The user ids of the account_deleted events after `after` (of `only` when given), in order. */
async function deletedEventsSince(after: bigint, only?: string[]): Promise<string[]> {
  const rows = await app.db
    .selectFrom('liveEvents')
    .select(['id', 'payload'])
    .where('type', '=', 'account_deleted')
    .where('id', '>', String(after))
    .orderBy('id')
    .execute();
  const ids = rows.map((row) => {
    const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
    return (payload as { userId: string }).userId;
  });
  return only ? ids.filter((id) => only.includes(id)) : ids;
}

describe(`account deletion under concurrency on ${testDbKind}`, () => {
  it('a stale user id (deleted elsewhere) is resolved again: the identity starts as a new user', async () => {
    const subject = uniqueSubject();
    const token = await app.issuer.sign(subject);
    const first = await app.request('POST', '/api/user/profile', { token, body: { name: 'Gone' } });
    const oldId: string = first.body.data.user.id;
    // Deleted as another instance would: this app's user-id cache still holds the old id.
    await deleteAccount(app.db, { issuer: app.issuer.issuer, subject });
    for (const [method, path, body] of [
      ['GET', '/api/user', undefined],
      ['GET', '/api/user/export', undefined],
      ['PATCH', '/api/user', { name: 'Back' }],
    ] as const) {
      const response = await app.request(method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(200);
    }
    const me = (await app.request('GET', '/api/user', { token })).body.data;
    expect(me.id).not.toBe(oldId);
    expect(me).toMatchObject({ name: 'Back', points: 0 });
  });

  it('a DELETE with a stale user id erases the user the identity has again elsewhere', async () => {
    const subject = uniqueSubject();
    const token = await app.issuer.sign(subject);
    expect((await app.request('POST', '/api/user/profile', { token, body: {} })).status).toBe(201);
    // Another instance deletes the account, and the identity comes back there as a new user;
    // this app's cache still holds the old id.
    await deleteAccount(app.db, { issuer: app.issuer.issuer, subject });
    const again = await ensureUser(app.db, app.issuer.issuer, subject);
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
    expect(await findUser(app.db, again.id)).toBeUndefined();
    expect(await deletedEventsSince(0n, [again.id])).toEqual([again.id]);
  });

  it.each(FACES)(
    'two DELETEs at once over %s: one account_deleted event, no user created to be deleted',
    async (face) => {
      const write = writer(app, face);
      const subject = uniqueSubject();
      const token = await app.issuer.sign(subject);
      const onboarded = await write('onboardProfile', token, { name: 'Twice at once' });
      const userId: string = onboarded.ok && onboarded.data.user.id;
      const before = await lastEventId();
      const results = await Promise.all([
        write('deleteAccount', token),
        write('deleteAccount', token),
      ]);
      for (const result of results) {
        expect(result).toEqual({
          ok: true,
          status: 200,
          data: { deleted: true, deletedAt: expect.any(String) },
        });
      }
      expect(await deletedEventsSince(before)).toEqual([userId]);
      // No users row for the identity: the racing DELETE made none (and deleted none).
      const rows = await app.db
        .selectFrom('users')
        .select('id')
        .where('issuer', '=', app.issuer.issuer)
        .where('subject', '=', subject)
        .execute();
      expect(rows).toEqual([]);
      expect(await consistencyProblems(app.db)).toEqual([]);
    },
  );

  it('writes racing a deletion land before it or on the new user; nothing half-written', async () => {
    const write = writer(app, 'rest');
    const token = await app.token();
    await write('onboardProfile', token, { favoriteTeam: 'Racing' });
    const logsBefore = app.logs.length;
    type Call = [label: string, procedure: WriteProcedure, input?: Record<string, unknown>];
    const calls: Call[] = [
      ...Array.from({ length: 4 }, (_, i): Call => [
        'PATCH /api/user',
        'updateUser',
        { location: `L${i}` },
      ]),
      ['DELETE /api/user', 'deleteAccount'],
      ['DELETE /api/user', 'deleteAccount'],
      ...Array.from({ length: 4 }, (): Call => [
        'POST /api/user/profile',
        'onboardProfile',
        { name: 'Racer' },
      ]),
    ];
    const results = await Promise.all(
      calls.map(([, procedure, input]) => write(procedure, token, input)),
    );
    // On failure the message names every failed call and carries the app's warn and error logs.
    const failed = results.flatMap((result, i) =>
      result.ok ? [] : [`${calls[i]![0]}: ${result.status} ${result.code} ${result.message}`],
    );
    const logs = app.logs
      .slice(logsBefore)
      .filter((line) => /"level":"(warn|error|fatal)"/.test(line));
    expect(failed, [...failed, ...logs].join('\n')).toEqual([]);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});

describe(`the ledger stays append-only on ${testDbKind}`, () => {
  it('allows only moving rows, unchanged, to a tombstone', async () => {
    const token = await app.token();
    const onboarded = await app.request('POST', '/api/user/profile', { token, body: {} });
    const userId: string = onboarded.body.data.user.id;
    const other = (await app.request('GET', '/api/user', { token: await app.token() })).body.data
      .id as string;
    const refused = (statement: Promise<unknown>) =>
      expect(statement).rejects.toMatchObject({ message: 'points_ledger is append-only' });
    // To a live user: refused.
    await refused(
      app.db
        .updateTable('pointsLedger')
        .set({ userId: other })
        .where('userId', '=', userId)
        .execute(),
    );
    const tombstone = await app.db
      .insertInto('users')
      .values({ issuer: TOMBSTONE_ISSUER, subject: randomUUID(), deletedAt: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    // To a tombstone while changing anything else: refused.
    await refused(
      app.db
        .updateTable('pointsLedger')
        .set({ userId: tombstone.id, delta: 1 })
        .where('userId', '=', userId)
        .execute(),
    );
    await refused(app.db.deleteFrom('pointsLedger').where('userId', '=', userId).execute());
    // Only the owner, to a tombstone: allowed.
    const moved = await app.db
      .updateTable('pointsLedger')
      .set({ userId: tombstone.id })
      .where('userId', '=', userId)
      .executeTakeFirst();
    expect(Number(moved.numUpdatedRows)).toBe(1);
  });
});
