import { Migrator, type Kysely } from 'kysely';
import { migrations } from './migrations/index.js';

/**
 * Applies every pending migration and returns the names applied, in order
 * (empty when already up to date). Throws an Error naming the migration that
 * failed and why; that migration and the ones after it are not applied (they
 * run in one transaction).
 *
 * Safe when several service processes start at once against one PostgreSQL:
 * Kysely's PostgreSQL adapter holds a session advisory lock
 * (pg_advisory_lock) around the run and re-reads the applied list under it,
 * so the second process waits, then finds nothing to do. Waiting counts
 * against `statement_timeout` (DATABASE_STATEMENT_TIMEOUT_MS), as does each
 * migration statement: a slow migration needs a larger value for that run.
 * On PGlite the same lock works, and our driver's connection mutex already
 * serialises concurrent runs inside the one process that may open the data.
 */
// Kysely's Migrator is typed for Kysely<any>: migrations run before the schema
// they create exists.
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    // Migrations are frozen snake_case SQL; the app's CamelCasePlugin must not
    // reinterpret their identifiers (or Kysely's own migration tables).
    db: db.withoutPlugins(),
    provider: { getMigrations: async () => migrations },
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error');
    const where = failed
      ? `Migration "${failed.migrationName}" failed`
      : 'Migrations could not run';
    throw new Error(`${where}: ${describe(error)}`, { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((r) => r.migrationName);
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
