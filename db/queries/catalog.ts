import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** One stored version of a definition (catalog_definitions). */
export interface DefinitionRow {
  kind: string;
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
