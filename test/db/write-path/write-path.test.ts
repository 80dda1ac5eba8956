import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyUserWrites,
  readUserState,
  type UserWritePlan,
} from '../../../db/queries/user-write/index.js';
import type { Database } from '../../../db/schema.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { CountStatements } from '../../helpers/count-statements.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

/**
 * The write path: one state read and one guarded statement (no transaction),
 * a retry when the state moved, and the rules that must survive concurrency.
 */

let database: TestDatabase;
let app: TestApp;
const counter = new CountStatements();

beforeAll(async () => {
  database = await createTestDatabase();
  const counted = database.db.withPlugin(counter);
  // A transaction adds BEGIN and COMMIT, which no plugin sees: count them here.
  const transaction = counted.transaction.bind(counted);
  counted.transaction = () => {
    counter.count += 2;
    return transaction();
  };
  // The catalog is read once here and then checked once a minute: not on the counted requests.
  app = await startTestApp({
    database: { ...database, db: counted },
    env: { CATALOG_REFRESH_MS: '60000' },
  });
  await app.request('GET', '/api/user/quests', { token: await app.token() });
});
afterAll(async () => {
  await app?.close();
  await database?.destroy();
});

const onboard = (token: string, body: unknown) =>
  app.request('POST', '/api/user/profile', { token, body });
const patch = (token: string, body: unknown) => app.request('PATCH', '/api/user', { token, body });

async function statementsOf(request: () => Promise<{ status: number }>, status: number) {
  const before = counter.count;
  const response = await request();
  expect(response.status).toBe(status);
  return counter.count - before;
}

/** One plan through the write engine's statement (the n = 1 case), its outcome. */
async function applyOne(plan: UserWritePlan) {
  const [applied] = await applyUserWrites(database.db, database.statements, [plan]);
  if (!applied!.ok) throw applied!.error;
  return applied!.value;
}

describe('statements per request', () => {
  it('PATCH and first-time onboarding: one state read and one write, or one write after a write on this instance', async () => {
    const token = await app.token();
    // First sight of the identity: the users insert, then read + write.
    expect(await statementsOf(() => patch(token, { name: 'Counted' }), 200)).toBe(3);
    // The user's next write plans from the state the last one left: one statement.
    expect(await statementsOf(() => patch(token, { location: 'Leeds' }), 200)).toBe(1);
    // A write that changes nothing on that state reads the stored one; still nothing: only the read.
    expect(await statementsOf(() => patch(token, { location: 'Leeds' }), 200)).toBe(1);

    // First-time onboarding of a known user: one write (rank and history included).
    expect(await statementsOf(() => onboard(token, { favoriteTeam: 'Ajax' }), 201)).toBe(1);
    // After onboarding a PATCH that awards a quest is still one write.
    expect(await statementsOf(() => patch(token, { rivalTeam: 'PSV' }), 200)).toBe(1);
    // A repeat onboarding that changes nothing: read, rank, history.
    expect(await statementsOf(() => onboard(token, {}), 200)).toBe(3);

    // A never-seen identity onboarding: the users insert, read, write.
    const fresh = await app.token();
    expect(await statementsOf(() => onboard(fresh, { name: 'Fresh' }), 201)).toBe(3);
  });
});

describe('optimistic concurrency', () => {
  it('a write planned from a stale read changes nothing and says so', async () => {
    const token = await app.token();
    const first = await onboard(token, { name: 'Stale' });
    const userId: string = first.body.data.user.id;
    const state = (await readUserState(database.db, database.statements, userId))!;
    // Another write lands between the read and the write.
    expect((await patch(token, { location: 'Moved' })).status).toBe(200);
    const ledgerBefore = await ledgerOf(database.db, userId);

    const plan: UserWritePlan = {
      userId,
      expectedVersion: state.user.version,
      at: new Date(),
      onboard: false,
      profile: { ...state.profile!, name: 'Lost', handle: 'stale_write' },
      boards: [{ board: 'all', before: state.entries.get('all'), points: state.points + 25 }],
      team: { favoriteTeam: 'Everton', changed: true },
      quests: [
        {
          questId: 'pick_team',
          period: '',
          progress: 1,
          target: 1,
          tiersReached: 1,
          status: 'completed',
          completedAt: new Date(),
        },
      ],
      credits: [
        {
          key: 'quest:pick_team',
          delta: 25,
          reason: 'quest_completed',
          questId: 'pick_team',
          source: 'quest',
          sourceDetail: { questId: 'pick_team', period: null, tier: 1 },
          balanceAfter: state.points + 25,
        },
      ],
      historyLimit: 20,
      rank: true,
    };
    const result = await applyOne(plan);
    expect(result).toEqual({ outcome: 'stale', current: undefined });
    const after = (await readUserState(database.db, database.statements, userId))!;
    // A plan made from a cached state asks for the stored state back instead.
    expect(
      await applyOne({
        ...plan,
        returnStateOn: { boards: ['all'], periods: [''] },
      }),
    ).toEqual({
      outcome: 'stale',
      current: after,
    });
    expect(after.profile).toMatchObject({ name: 'Stale', location: 'Moved', handle: null });
    expect(after.points).toBe(state.points);
    expect(after.entries.get('all')).toEqual(state.entries.get('all'));
    expect(after.quests.get('pick_team')?.status).toBe('in_progress');
    expect(await ledgerOf(database.db, userId)).toEqual(ledgerBefore);
  });

  it('returns the outcome handle_taken and writes nothing', async () => {
    const holder = await app.token();
    const handle = `held_${Date.now().toString(36)}`;
    expect((await patch(holder, { handle })).status).toBe(200);
    const token = await app.token();
    const userId: string = (await onboard(token, { name: 'Wants' })).body.data.user.id;
    const state = (await readUserState(database.db, database.statements, userId))!;
    const result = await applyOne({
      userId,
      expectedVersion: state.user.version,
      at: new Date(),
      onboard: false,
      profile: { ...state.profile!, name: 'Changed', handle: handle.toUpperCase() },
      boards: [],
      team: { favoriteTeam: null, changed: false },
      quests: [],
      credits: [],
      historyLimit: 0,
      rank: false,
    });
    expect(result).toEqual({ outcome: 'handle_taken' });
    const after = (await readUserState(database.db, database.statements, userId))!;
    expect(after.user.version).toBe(state.user.version);
    expect(after.profile?.name).toBe('Wants');
  });

  it('concurrent PATCHes of one user, each setting another field, lose none of them', async () => {
    const token = await app.token();
    expect((await onboard(token, {})).status).toBe(201);
    const values = {
      name: 'All Eight',
      handle: `eight_${Date.now().toString(36)}`,
      location: 'Porto',
      favoriteSport: 'Football',
      favoriteTeam: 'Porto FC',
      favoritePlayer: 'Pepe',
      rivalTeam: 'Benfica',
      profileUrl: 'https://example.com/eight',
    };
    const client = app.trpc(token);
    const responses = await Promise.all(
      Object.entries(values).map(([field, value], i) =>
        i % 2
          ? patch(token, { [field]: value }).then((r) => r.status)
          : client.updateUser.mutate({ [field]: value }).then(() => 200),
      ),
    );
    expect(responses).toEqual(Array(8).fill(200));
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data).toMatchObject(values);
    // welcome 100 + handle 25 + team 25 + rival 25 + complete profile 100, each once.
    expect(me.body.data.points).toBe(275);
    const ledger = await ledgerOf(database.db, me.body.data.id);
    let running = 0;
    for (const entry of ledger) {
      running += entry.delta;
      expect(entry.balanceAfter).toBe(running);
    }
    expect(ledger.map((entry) => entry.idempotencyKey).sort()).toEqual([
      'quest:claim_handle',
      'quest:complete_profile',
      'quest:name_rival',
      'quest:pick_team',
      'quest:welcome',
    ]);
    expect(await consistencyProblems(database.db)).toEqual([]);
  });

  it('answers 503 UNAVAILABLE with Retry-After when every try loses the race', async () => {
    const token = await app.token();
    const userId: string = (await onboard(token, { name: 'Contended' })).body.data.user.id;
    // A trigger that turns every update of this user into a no-op: the guard never
    // matches, exactly as if another write always landed between read and write.
    await sql`CREATE FUNCTION skip_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RETURN NULL; END $$`.execute(database.db);
    await sql`CREATE TRIGGER always_stale BEFORE UPDATE ON users FOR EACH ROW
      WHEN (OLD.id = ${sql.lit(userId)}::uuid) EXECUTE FUNCTION skip_update()`.execute(database.db);
    try {
      const before = counter.count;
      const response = await patch(token, { name: 'Never' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.body).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
      // The try planned from this instance's cached state, then eight of read + write.
      expect(counter.count - before).toBe(17);
    } finally {
      await sql`DROP TRIGGER always_stale ON users`.execute(database.db);
      await sql`DROP FUNCTION skip_update()`.execute(database.db);
    }
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data.name).toBe('Contended');
  });
});

function ledgerOf(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('pointsLedger')
    .select(['delta', 'balanceAfter', 'idempotencyKey'])
    .where('userId', '=', userId)
    .orderBy('id')
    .execute();
}
