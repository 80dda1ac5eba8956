import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Migrator, NO_MIGRATIONS, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle, type DatabaseOptions } from '../../../db/database.js';
import { readUserState } from '../../../db/queries/user-write/index.js';
import { migrateToLatest } from '../../../db/migrate.js';
import { migrations } from '../../../db/migrations/index.js';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS } from '../../../db/profile-fields.js';
import type { Database } from '../../../db/schema.js';
import {
  createTestDatabase,
  testDbKind,
  type TestDatabase,
  openPool,
} from '../../helpers/test-db.js';

const MIGRATION_NAMES = Object.keys(migrations);

let database: TestDatabase;
let db: Kysely<Database>;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});

afterAll(async () => {
  await database?.destroy();
});

async function insertUser(on: Kysely<Database> = db): Promise<string> {
  const row = await on
    .insertInto('users')
    .values({ issuer: 'https://issuer.test', subject: randomUUID() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function caught(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('expected the operation to fail');
}

describe(`database layer on ${testDbKind}`, () => {
  it('reports its kind and has every migration applied', async () => {
    expect(database.kind).toBe(testDbKind);
    const tables = await sql<{ tableName: string }>`
      select table_name from information_schema.tables where table_schema = 'public'`.execute(db);
    expect(tables.rows.map((row) => row.tableName)).toEqual(
      expect.arrayContaining([
        'users',
        'profiles',
        'points_ledger',
        'leaderboard_entries',
        'user_quests',
        'kysely_migration',
      ]),
    );
    const applied = await sql<{
      name: string;
    }>`select name from kysely_migration order by name`.execute(db);
    expect(applied.rows.map((row) => row.name)).toEqual(MIGRATION_NAMES);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it('commits a transaction, and rolls one back when its callback throws', async () => {
    const committed = await db.transaction().execute((trx) => insertUser(trx));
    let rolledBack: string | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        rolledBack = await insertUser(trx);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(rolledBack).toBeDefined();
    const found = await db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', [committed, rolledBack!])
      .execute();
    expect(found.map((row) => row.id)).toEqual([committed]);
  });

  it('honours an isolation level', async () => {
    const level = await db
      .transaction()
      .setIsolationLevel('serializable')
      .execute((trx) =>
        sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(
          trx,
        ),
      );
    expect(level.rows[0]?.level).toBe('serializable');
  });

  it('serialises 20 concurrent read-modify-write transactions (no lost update)', async () => {
    const userId = await insertUser();
    await db
      .insertInto('leaderboardEntries')
      .values({ board: 'all', userId, points: 0, reachedSeq: 1 })
      .execute();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction().execute(async (trx) => {
          // FOR UPDATE serialises on PostgreSQL; on PGlite (one session, where
          // row locks cannot conflict) the driver's connection mutex must.
          const { points } = await trx
            .selectFrom('leaderboardEntries')
            .select('points')
            .where('userId', '=', userId)
            .forUpdate()
            .executeTakeFirstOrThrow();
          await sleep(2); // let the other transactions try to interleave
          await trx
            .updateTable('leaderboardEntries')
            .set({ points: points + 1 })
            .where('userId', '=', userId)
            .execute();
        }),
      ),
    );
    const row = await db
      .selectFrom('leaderboardEntries')
      .select('points')
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow();
    expect(row.points).toBe(20);
  });

  it('reports a unique violation with SQLSTATE 23505 and the constraint name, like pg', async () => {
    const [ann, other] = [await insertUser(), await insertUser()];
    await db.insertInto('profiles').values({ userId: ann, handle: 'Ann' }).execute();
    const error = await caught(
      db
        .transaction()
        .execute((trx) =>
          trx.insertInto('profiles').values({ userId: other, handle: 'ann' }).execute(),
        ),
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: '23505',
      constraint: 'profiles_handle_lower_key',
      table: 'profiles',
    });
    // PGlite attaches the statement's parameters (user data) to its errors; ours must not.
    expect(error).not.toHaveProperty('params');
    // The failed transaction was rolled back and its connection handed back.
    const profile = await db
      .selectFrom('profiles')
      .select('handle')
      .where('userId', '=', other)
      .executeTakeFirst();
    expect(profile).toBeUndefined();
  });

  it('returns the same value types on both drivers: Date, int8 as string, numeric as string', async () => {
    const userId = await insertUser();
    const entry = await db
      .insertInto('pointsLedger')
      .values({ userId, delta: 5, reason: 'test', idempotencyKey: 'k1', balanceAfter: 5 })
      .returning(['id', 'createdAt', 'delta'])
      .executeTakeFirstOrThrow();
    expect(typeof entry.id).toBe('string');
    expect(entry.id).toMatch(/^\d+$/);
    expect(entry.createdAt).toBeInstanceOf(Date);
    expect(entry.delta).toBe(5);
    const totals = await db
      .selectFrom('pointsLedger')
      .select((eb) => [eb.fn.countAll().as('entries'), eb.fn.sum('delta').as('points')])
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow();
    expect(totals).toEqual({ entries: '1', points: '5' });
  });

  it('reports affected rows of writes', async () => {
    const userId = await insertUser();
    const result = await db
      .updateTable('users')
      .set({ updatedAt: new Date() })
      .where('id', '=', userId)
      .executeTakeFirst();
    expect(result.numUpdatedRows).toBe(1n);
  });

  it('keeps the points ledger append-only: UPDATE and DELETE are refused', async () => {
    const userId = await insertUser();
    await db
      .insertInto('pointsLedger')
      .values({ userId, delta: 10, reason: 'test', idempotencyKey: 'once', balanceAfter: 10 })
      .execute();
    const update = await caught(
      db.updateTable('pointsLedger').set({ delta: 99 }).where('userId', '=', userId).execute(),
    );
    expect(update).toMatchObject({ code: 'P0001', message: 'points_ledger is append-only' });
    const remove = await caught(
      db.deleteFrom('pointsLedger').where('userId', '=', userId).execute(),
    );
    expect(remove).toMatchObject({ code: 'P0001', message: 'points_ledger is append-only' });
    const rows = await db
      .selectFrom('pointsLedger')
      .select('delta')
      .where('userId', '=', userId)
      .execute();
    expect(rows).toEqual([{ delta: 10 }]);
  });

  it('answers ping', async () => {
    await expect(database.ping()).resolves.toBeUndefined();
  });
});

describe('the profile field table (db/profile-fields.ts)', () => {
  it('names the profiles table’s text columns, each read back under its field name', async () => {
    const columns = await sql<{ name: string; type: string }>`
      SELECT column_name AS name, data_type AS type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'profiles'
        AND column_name NOT IN ('user_id', 'created_at', 'updated_at')
      ORDER BY column_name`.execute(db);
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
    expect(columns.rows).toEqual(
      PROFILE_FIELDS.map((field) => ({
        name: PROFILE_FIELD_TABLE[field].column,
        type: 'text',
      })).sort(byName),
    );
    const userId = await insertUser();
    const values = Object.fromEntries(PROFILE_FIELDS.map((field) => [field, `${field} value`]));
    await db
      .insertInto('profiles')
      .values({ userId, ...values })
      .execute();
    const row = await db
      .selectFrom('profiles')
      .select(PROFILE_FIELDS)
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual(values);
  });
});

describe('opening and closing', () => {
  let own: TestDatabase;

  beforeAll(async () => {
    own = await createTestDatabase();
  });

  afterAll(async () => {
    await own?.destroy();
  });

  it('close() can be called twice, and ping fails after it', async () => {
    await own.ping();
    await own.close();
    await expect(own.close()).resolves.toBeUndefined();
    await expect(own.ping()).rejects.toThrow();
  });
});

describe.skipIf(testDbKind !== 'pglite')('embedded data dir', () => {
  let own: TestDatabase;

  beforeAll(async () => {
    own = await createTestDatabase();
  });

  afterAll(async () => {
    await own?.destroy();
  });

  it('keeps data across close and reopen, and refuses a second opener meanwhile', async () => {
    const userId = await insertUser(own.db);
    const open = () =>
      createDatabase({
        databaseUrl: undefined,
        dataDir: own.dataDir,
        poolMax: 1,
        statementTimeoutMs: 1000,
      });
    await expect(open()).rejects.toThrow(/in use by process/);
    await own.close();

    const reopened = await open();
    try {
      const row = await reopened.db
        .selectFrom('users')
        .select('id')
        .where('id', '=', userId)
        .executeTakeFirst();
      expect(row).toEqual({ id: userId });
    } finally {
      await reopened.close();
    }
  });

  it('refuses a data dir locked by another live process, and takes over a stale lock', async () => {
    await own.close();
    const lockFile = path.join(own.dataDir, 'pgdata.lock');
    const open = () =>
      createDatabase({
        databaseUrl: undefined,
        dataDir: own.dataDir,
        poolMax: 1,
        statementTimeoutMs: 1000,
      });

    await writeFile(lockFile, String(process.ppid)); // alive: the vitest main process
    await expect(open()).rejects.toThrow(`in use by process ${process.ppid}`);

    await writeFile(lockFile, '2147483646'); // no such process
    const reopened = await open();
    await reopened.close();
  });
});

describe.skipIf(testDbKind !== 'postgres')('PostgreSQL pool', () => {
  it('applies statement_timeout to every query', async () => {
    const handle = await openPool(database, { poolMax: 1, statementTimeoutMs: 200 });
    try {
      const error = await caught(sql`select pg_sleep(2)`.execute(handle.db));
      expect(error).toMatchObject({ code: '57014' });
    } finally {
      await handle.close();
    }
  });
});

describe.skipIf(testDbKind !== 'postgres')('named statements (db/statements.ts)', () => {
  const opened: DatabaseHandle[] = [];
  afterAll(async () => {
    for (const handle of opened) await handle.close();
  });

  /** One connection, so the session asked about is the one that ran the statements. */
  async function onePool(options: Partial<DatabaseOptions> = {}): Promise<DatabaseHandle> {
    const handle = await openPool(database, { poolMax: 1, ...options });
    opened.push(handle);
    return handle;
  }

  async function ours(on: Kysely<Database>) {
    const result = await sql<{ name: string; genericPlans: string; customPlans: string }>`
      select name, generic_plans, custom_plans from pg_prepared_statements
      where name like 'ups\_%'`.execute(on);
    return result.rows.map((row) => ({
      name: row.name,
      runs: Number(row.genericPlans) + Number(row.customPlans),
    }));
  }

  it('parse the state read once per connection and reuse it', async () => {
    const handle = await onePool();
    const userId = await insertUser(handle.db);
    for (let i = 0; i < 7; i++) {
      expect((await readUserState(handle.db, handle.statements, userId))?.user.id).toBe(userId);
    }
    const [read, ...others] = await ours(handle.db);
    expect(others).toEqual([]);
    expect(read?.runs).toBe(7);
  });

  it('are not used with preparedStatements off', async () => {
    const handle = await onePool({ preparedStatements: false });
    const userId = await insertUser(handle.db);
    expect((await readUserState(handle.db, handle.statements, userId))?.user.id).toBe(userId);
    expect(await ours(handle.db)).toEqual([]);
  });

  it('run unnamed, and stop being named, when the server connection lost them (as behind a transaction pooler)', async () => {
    const refused: Error[] = [];
    const handle = await onePool({ onPreparedStatementsOff: (error) => refused.push(error) });
    const userId = await insertUser(handle.db);
    await readUserState(handle.db, handle.statements, userId);
    expect(await ours(handle.db)).toHaveLength(1);
    // pg still believes the statement parsed on this connection; the server no longer has it.
    await sql`deallocate all`.execute(handle.db);
    expect((await readUserState(handle.db, handle.statements, userId))?.user.id).toBe(userId);
    expect((await readUserState(handle.db, handle.statements, userId))?.user.id).toBe(userId);
    expect(refused.map((error) => (error as { code?: string }).code)).toEqual(['26000']);
    expect(await ours(handle.db)).toEqual([]);
  });
});

describe('migrations', () => {
  let own: TestDatabase;
  const extra: DatabaseHandle[] = [];

  beforeAll(async () => {
    own = await createTestDatabase();
  });

  afterAll(async () => {
    for (const handle of extra) await handle.close();
    await own?.destroy();
  });

  async function migrateAllDown(on: Kysely<Database>): Promise<void> {
    const migrator = new Migrator({
      db: on.withoutPlugins(),
      provider: { getMigrations: async () => migrations },
    });
    const { error } = await migrator.migrateTo(NO_MIGRATIONS);
    if (error) throw error;
  }

  it('apply each migration exactly once when two runs start at the same time', async () => {
    await migrateAllDown(own.db);
    // On PostgreSQL two pools stand for two service processes; PGlite allows
    // one process, so both runs share its handle.
    let second: DatabaseHandle = own;
    if (testDbKind === 'postgres') {
      second = await openPool(own, { poolMax: 2 });
      extra.push(second);
    }
    const [a, b] = await Promise.all([migrateToLatest(own.db), migrateToLatest(second.db)]);
    expect([...a, ...b].sort()).toEqual(MIGRATION_NAMES);
    expect(await migrateToLatest(own.db)).toEqual([]);
  });

  it('roll back the whole run, lock included, when a migration fails', async () => {
    await migrateAllDown(own.db);
    await sql`create table users (id int)`.execute(own.db);
    await expect(migrateToLatest(own.db)).rejects.toThrow(/failed/);
    const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(own.db);
    expect(applied.rows).toEqual([]);
    await sql`drop table users`.execute(own.db);
    expect(await migrateToLatest(own.db)).toEqual(MIGRATION_NAMES);
  });

  it('name the failed migration and its cause', async () => {
    await migrateAllDown(own.db);
    await sql`create table users (id int)`.execute(own.db);
    await expect(migrateToLatest(own.db)).rejects.toThrow(
      `Migration "${MIGRATION_NAMES[0]}" failed: relation "users" already exists (42P07)`,
    );
  });
});
