import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

type DefinitionKindColumn = Database['catalogDefinitions']['kind'];

/** One stored version of a definition (catalog_definitions). */
export interface DefinitionRow {
  kind: DefinitionKindColumn;
  key: string;
  version: number;
  definition: unknown;
  retired: boolean;
  changedBy: string;
  changedAt: Date;
}

/** The catalog's revision: moved by every change, so instances know when to reload. */
export async function catalogRevision(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('catalogRevision').select('revision').executeTakeFirstOrThrow();
  return Number(row.revision);
}

/**
 * The newest version of every definition, retired ones included (the caller
 * keeps the active ones), with the revision they belong to: one snapshot.
 */
export async function latestDefinitions(
  db: Kysely<Database>,
): Promise<{ revision: number; rows: DefinitionRow[] }> {
  const rows = await db
    .selectFrom('catalogDefinitions as d')
    .select([
      'd.kind',
      'd.key',
      'd.version',
      'd.definition',
      'd.retired',
      'd.changedBy',
      'd.changedAt',
      sql<string>`(SELECT revision FROM catalog_revision)::text`.as('revision'),
    ])
    .distinctOn(['d.kind', 'd.key'])
    .orderBy('d.kind')
    .orderBy('d.key')
    .orderBy('d.version', 'desc')
    .execute();
  const revision = rows[0] ? Number(rows[0].revision) : await catalogRevision(db);
  return { revision, rows: rows.map(({ revision: _, ...row }) => row) };
}

/**
 * Stored versions of one definition, newest first (empty when it never
 * existed): up to `limit`, older than `beforeVersion` when given.
 */
export function definitionVersions(
  db: Kysely<Database>,
  kind: DefinitionKindColumn,
  key: string,
  page: { limit: number; beforeVersion?: number | undefined },
): Promise<DefinitionRow[]> {
  let query = db
    .selectFrom('catalogDefinitions')
    .select(['kind', 'key', 'version', 'definition', 'retired', 'changedBy', 'changedAt'])
    .where('kind', '=', kind)
    .where('key', '=', key);
  if (page.beforeVersion !== undefined) query = query.where('version', '<', page.beforeVersion);
  return query.orderBy('version', 'desc').limit(page.limit).execute();
}

/**
 * Takes the catalog's lock for the rest of the transaction: changes to the
 * catalog are made one at a time, each validated against the catalog it
 * changes (a quest may not name an event type retired at the same moment).
 */
export async function lockCatalog(db: Kysely<Database>): Promise<void> {
  await db.selectFrom('catalogRevision').select('revision').forUpdate().execute();
}

/**
 * Appends a version of a definition and moves the catalog's revision, in the
 * caller's transaction: every instance reloads within its refresh interval.
 */
export async function appendDefinition(
  db: Kysely<Database>,
  row: Omit<DefinitionRow, 'changedAt'>,
): Promise<DefinitionRow> {
  const stored = await db
    .insertInto('catalogDefinitions')
    .values({ ...row, definition: JSON.stringify(row.definition) })
    .returning(['kind', 'key', 'version', 'definition', 'retired', 'changedBy', 'changedAt'])
    .executeTakeFirstOrThrow();
  await db
    .updateTable('catalogRevision')
    .set({ revision: sql`revision + 1` })
    .execute();
  return stored;
}
