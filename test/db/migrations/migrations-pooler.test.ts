import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { migrateToLatest } from '../../../db/migrate.js';
import {
  createTestDatabase,
  testDbKind,
  type TestDatabase,
  openPool,
} from '../../helpers/test-db.js';

/**
 * Migration runs behind a transaction pooler. CI runs this file against
 * PostgreSQL directly and through PgBouncer in transaction mode (.ci/run):
 * Kysely's own session lock, taken and released by two statements outside the
 * run's transaction, could reach two server connections there and stay held,
 * so the next start waited until statement_timeout (db/adapter.ts).
 */
describe.skipIf(testDbKind !== 'postgres')('migrations from several pools at once', () => {
  let database: TestDatabase;
  const pools: DatabaseHandle[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await database?.destroy();
  });

  it(
    'finish, and leave no lock behind, when runs interleave with other work',
    { timeout: 60_000 },
    async () => {
      for (let i = 0; i < 4; i++) {
        pools.push(await openPool(database));
      }
      for (let round = 0; round < 10; round++) {
        const runs = await Promise.all(
          pools.map(async (pool) => {
            const [applied] = await Promise.all([
              migrateToLatest(pool.db),
              sql`select pg_sleep(0.01)`.execute(pool.db),
              sql`select 1`.execute(pool.db),
            ]);
            return applied;
          }),
        );
        expect(runs).toEqual(pools.map(() => []));
      }
      const held = await sql<{ count: string }>`
      select count(*) from pg_locks
      where locktype = 'advisory'
        and database = (select oid from pg_database where datname = current_database())`.execute(
        database.db,
      );
      expect(held.rows[0]?.count).toBe('0');
    },
  );
});
