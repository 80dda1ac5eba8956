import { Migrator, sql, type Kysely } from 'kysely';
import { migrations } from './migrations/index.js';

/** Serialises migration runs on one database (any 64-bit key unique to this use). */
const MIGRATION_LOCK = sql.lit(BigInt('7315226110904470001'));

/**
 * Applies every pending migration and returns the names applied, in order
 * (empty when already up to date). Throws an Error naming the migration that
 * failed and why; nothing of that run is applied (all of it, Kysely's own
 * bookkeeping tables included, runs in one transaction).
 *
 * Safe when several service processes start at once against one PostgreSQL,
 * directly or through a transaction pooler: the transaction's first statement
 * takes a transaction-level advisory lock, so the second process waits, then
 * finds nothing to do; the lock ends with the transaction (db/adapter.ts says
 * why Kysely's own session lock is switched off). Waiting counts against
 * `statement_timeout` (DATABASE_STATEMENT_TIMEOUT_MS), as does each migration
 * statement: a slow migration needs a larger value for that run. On PGlite
 * the same lock works, and our driver's connection mutex already serialises
 * concurrent runs inside the one process that may open the data.
 *
 * `db` must come from `createDatabase` (its adapter takes no lock of its own).
 */
// Kysely's Migrator is typed for Kysely<any>: migrations run before the schema
// they create exists.
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // Migrations are frozen snake_case SQL; the app's CamelCasePlugin must not
  // reinterpret their identifiers (or Kysely's own migration tables).
  return db
    .withoutPlugins()
    .connection()
    .execute(async (connection) => {
      await sql`begin`.execute(connection);
      try {
        await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(connection);
        const migrator = new Migrator({
          db: connection,
          provider: { getMigrations: async () => migrations },
          // The transaction above is the run's; Kysely must not open another.
          disableTransactions: true,
        });
        const { error, results = [] } = await migrator.migrateToLatest();
        if (error !== undefined) {
          const failed = results.find((result) => result.status === 'Error');
          const where = failed
            ? `Migration "${failed.migrationName}" failed`
            : 'Migrations could not run';
          throw new Error(`${where}: ${describe(error)}`, { cause: error });
        }
        await sql`commit`.execute(connection);
        return results.filter((result) => result.status === 'Success').map((r) => r.migrationName);
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
    });
}

/**
 * The migrations not yet applied to `db`, in order (empty when up to date).
 * Reads Kysely's bookkeeping table and changes nothing: for a start with
 * MIGRATE_ON_START=false, which refuses to serve an older schema.
 */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db: db.withoutPlugins(),
    provider: { getMigrations: async () => migrations },
  });
  const all = await migrator.getMigrations();
  return all.filter((migration) => migration.executedAt === undefined).map((m) => m.name);
}

/** A one-line cause, also for errors with an empty message (Node's AggregateError on connect). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  let text = error.message;
  if (!text && error instanceof AggregateError) {
    text = error.errors.map((inner) => describe(inner)).join('; ');
  }
  if (!text) text = error.name;
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}
