import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUser } from '../../../db/queries/users.js';
import { readUserState } from '../../../db/queries/user-write/index.js';
import type { Database } from '../../../db/schema.js';
import { UserGoneError } from '../../../src/app-error.js';
import { writeBoards } from '../../../src/domain/boards.js';
import { deleteAccount } from '../../../src/services/deletion.js';
import { onboard, updateProfile, type WriteDeps } from '../../../src/services/profile.js';
import { scopeKey, UserStateCache } from '../../../src/services/state-cache.js';
import { writeScope } from '../../../src/services/profile.js';
import { CatalogCache } from '../../../src/services/catalog.js';
import { CountStatements } from '../../helpers/count-statements.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { uniqueSubject } from '../../helpers/test-app.js';

/**
 * The write path's state cache (src/services/state-cache.ts): a user's next
 * write on an instance plans from the state that instance's last write left
 * and sends one guarded statement; a stale entry is caught by the guard, and
 * no answer is ever given from it without a write.
 */

const ISSUER = 'https://state-cache.test';
const HANDLES = { cooldownDays: 30, reserveDays: 0 };

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.destroy();
});

/** One service instance's write dependencies: its own cache, its own statement count. */
function instance(options: { cacheSize?: number; clock?: () => Date } = {}) {
  const counter = new CountStatements();
  const deps: WriteDeps = {
    db: database.db.withPlugin(counter),
    statements: database.statements,
    clock: options.clock ?? (() => new Date()),
    config: { handles: HANDLES },
    userStates: new UserStateCache(options.cacheSize ?? 100),
    catalog: new CatalogCache(database.db, { refreshMs: 60_000 }),
  };
  /** Runs `write` and returns how many statements it sent. */
  const statements = async (write: () => Promise<unknown>) => {
    const before = counter.count;
    await write();
    return counter.count - before;
  };
  return { deps, statements };
}

/** Asserts that `deps`' cached state of the user is what a read of the database returns now. */
async function expectCachedIsStored(deps: WriteDeps, userId: string, at: Date, step?: string) {
  const scope = writeScope(at);
  const cached = deps.userStates.get(userId, scopeKey(scope));
  expect(cached, step).toBeDefined();
  expect(cached, step).toEqual(
    await readUserState(database.db, database.statements, userId, scope),
  );
}

async function newUser(): Promise<string> {
  return (await ensureUser(database.db, ISSUER, uniqueSubject('cache'))).id;
}

const storedProfile = async (db: Kysely<Database>, userId: string) =>
  (await readUserState(db, database.statements, userId))!.profile;

describe('the cached state', () => {
  it('is, after every kind of write, exactly what a read of the database returns', async () => {
    const { deps } = instance();
    const userId = await newUser();
    const now = new Date();
    const steps: Array<[string, () => Promise<unknown>]> = [
      ['profile before onboarding', () => updateProfile(deps, userId, { name: 'Before' })],
      [
        'first onboarding (quests, ledger, board entries, handle)',
        () => onboard(deps, userId, { handle: `c_${userId.slice(-8)}`, favoriteTeam: 'Ajax' }),
      ],
      ['a quest completed by a PATCH', () => updateProfile(deps, userId, { rivalTeam: 'PSV' })],
      ['a team change', () => updateProfile(deps, userId, { favoriteTeam: 'Feyenoord' })],
      [
        'a handle change (cooldown starts)',
        () => updateProfile(deps, userId, { handle: `d_${userId.slice(-8)}` }),
      ],
      ['a plain field', () => updateProfile(deps, userId, { location: 'Utrecht' })],
      ['a repeat onboarding', () => onboard(deps, userId, { favoritePlayer: 'Cruijff' })],
      ['a cleared field', () => updateProfile(deps, userId, { location: null })],
    ];
    for (const [step, write] of steps) {
      await write();
      await expectCachedIsStored(deps, userId, now, step);
    }
  });

  it('lets a user’s next write send one statement and no read', async () => {
    const { deps, statements } = instance();
    const userId = await newUser();
    expect(await statements(() => onboard(deps, userId, { name: 'One' }))).toBe(2);
    expect(await statements(() => updateProfile(deps, userId, { location: 'Hull' }))).toBe(1);
    expect(await statements(() => updateProfile(deps, userId, { rivalTeam: 'Leeds' }))).toBe(1);
    expect((await storedProfile(database.db, userId))?.rivalTeam).toBe('Leeds');
  });

  it('is not used when it is off (USER_STATE_CACHE_SIZE=0): every write reads first', async () => {
    const { deps, statements } = instance({ cacheSize: 0 });
    const userId = await newUser();
    expect(await statements(() => onboard(deps, userId, { name: 'Off' }))).toBe(2);
    expect(await statements(() => updateProfile(deps, userId, { location: 'Hull' }))).toBe(2);
  });

  it('is keyed by the season boards: after a week rolls over the write reads', async () => {
    let now = new Date('2026-06-03T12:00:00Z');
    const { deps, statements } = instance({ clock: () => now });
    const userId = await newUser();
    await onboard(deps, userId, { name: 'Season' });
    expect(await statements(() => updateProfile(deps, userId, { location: 'A' }))).toBe(1);
    now = new Date('2026-06-10T12:00:00Z');
    expect(await statements(() => updateProfile(deps, userId, { location: 'B' }))).toBe(2);
    await expectCachedIsStored(deps, userId, now);
  });
});

describe('a stale cached state (another instance wrote since)', () => {
  it('the guarded write changes nothing and returns the stored state; the next try keeps both writes', async () => {
    const a = instance();
    const b = instance();
    const userId = await newUser();
    await onboard(a.deps, userId, { name: 'Stale' });
    await updateProfile(a.deps, userId, { location: 'A1' });
    await updateProfile(b.deps, userId, { name: 'From B' });
    // A plans from its cache (location A1, the name before B's write): the
    // write is refused by the version, returns the state, and is tried again.
    expect(
      await a.statements(() => updateProfile(a.deps, userId, { favoritePlayer: 'From A' })),
    ).toBe(2);
    expect(await storedProfile(database.db, userId)).toMatchObject({
      name: 'From B',
      location: 'A1',
      favoritePlayer: 'From A',
    });
    await expectCachedIsStored(a.deps, userId, new Date());
  });

  it('never answers a write that changes nothing on it: the stored state decides', async () => {
    const a = instance();
    const b = instance();
    const userId = await newUser();
    await onboard(a.deps, userId, { name: 'X' });
    await updateProfile(b.deps, userId, { name: 'Y' });
    // On A's cache the name is already X, so the plan writes nothing; the
    // stored name is Y, so it must be written.
    const count = await a.statements(async () => {
      const result = await updateProfile(a.deps, userId, { name: 'X' });
      expect(result.profile?.name).toBe('X');
    });
    expect(count).toBe(2); // the read, then the write
    expect((await storedProfile(database.db, userId))?.name).toBe('X');
  });

  it('never refuses on it: a refusal is checked against the stored state', async () => {
    const a = instance();
    const userId = await newUser();
    await onboard(a.deps, userId, { handle: `e_${userId.slice(-8)}` });
    await updateProfile(a.deps, userId, { handle: `f_${userId.slice(-8)}` });
    // The cache says a handle change is in its cooldown. Elsewhere (an
    // operator, here plain SQL that bumps the version as every writer must)
    // the change is struck from the history.
    await sql`DELETE FROM handle_history WHERE user_id = ${userId} AND kind = 'change'`.execute(
      database.db,
    );
    await sql`UPDATE users SET version = version + 1 WHERE id = ${userId}`.execute(database.db);
    await updateProfile(a.deps, userId, { handle: `g_${userId.slice(-8)}` });
    expect((await storedProfile(database.db, userId))?.handle).toBe(`g_${userId.slice(-8)}`);
  });

  it('a deleted user: the write finds no one and says so, in one statement', async () => {
    const a = instance();
    const subject = uniqueSubject('gone');
    const userId = (await ensureUser(database.db, ISSUER, subject)).id;
    await onboard(a.deps, userId, { name: 'Leaving' });
    await deleteAccount(database.db, { issuer: ISSUER, subject });
    let error: unknown;
    const count = await a.statements(async () => {
      error = await updateProfile(a.deps, userId, { location: 'Nowhere' }).catch((e) => e);
    });
    expect(error).toBeInstanceOf(UserGoneError);
    expect(count).toBe(1);
    expect(a.deps.userStates.get(userId, scopeKey(writeScope(new Date())))).toBeUndefined();
  });
});

describe('one user’s writes on one instance', () => {
  it('take turns: concurrent writes each send one statement, and none is lost', async () => {
    const { deps, statements } = instance();
    const userId = await newUser();
    await updateProfile(deps, userId, { name: 'Start' });
    // Without turns, all four plan from the same cached version: three lose the
    // race, and each loss costs a stale write, a read and another write.
    const count = await statements(() =>
      Promise.all([
        updateProfile(deps, userId, { name: 'One' }),
        updateProfile(deps, userId, { location: 'Two' }),
        updateProfile(deps, userId, { favoriteSport: 'Three' }),
        updateProfile(deps, userId, { favoritePlayer: 'Four' }),
      ]),
    );
    expect(count).toBe(4);
    const stored = await storedProfile(database.db, userId);
    expect(stored).toMatchObject({
      name: 'One',
      location: 'Two',
      favoriteSport: 'Three',
      favoritePlayer: 'Four',
    });
  });

  it('a failed write hands the turn on; other users never wait for it', async () => {
    const cache = new UserStateCache(10);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = cache.inTurn('a', async () => {
      await held;
      order.push('a1');
      throw new Error('a1 failed');
    });
    const second = cache.inTurn('a', async () => {
      order.push('a2');
      return 'a2 done';
    });
    // Another user's write runs while user a's first one is still held.
    await expect(cache.inTurn('b', async () => 'b done')).resolves.toBe('b done');
    expect(order).toEqual([]);
    release();
    await expect(first).rejects.toThrow('a1 failed');
    await expect(second).resolves.toBe('a2 done');
    expect(order).toEqual(['a1', 'a2']);
  });
});
