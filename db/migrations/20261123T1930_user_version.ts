import type { Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * `users.version`: bumped by every write of a user's state. A write reads the
 * state with its version, computes, and applies everything in one statement
 * guarded by `WHERE id = $1 AND version = $read` (db/queries/user-write.ts):
 * optimistic concurrency instead of a row lock held across round trips.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('version').execute();
}
