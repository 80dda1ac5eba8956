import { PostgresAdapter } from 'kysely';

/**
 * PostgreSQL's adapter, minus Kysely's migration lock. Kysely takes a session
 * advisory lock with one statement, runs the migrations in a transaction, and
 * unlocks with a later statement. Behind a transaction pooler (PgBouncer,
 * pool_mode = transaction) those three can reach three different server
 * connections: the unlock misses, the lock stays on a pooled server connection
 * for good, and every later start waits on it until statement_timeout (seen in
 * CI). `migrateToLatest` (db/migrate.ts) serialises runs with a
 * transaction-level lock inside the one transaction that runs them instead,
 * which a pooler keeps on one server connection and PostgreSQL releases at
 * COMMIT or ROLLBACK, whatever happens.
 */
export class ServiceAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}

  override async releaseMigrationLock(): Promise<void> {}
}
