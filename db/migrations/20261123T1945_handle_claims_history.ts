import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Handle claims, reservations and history.
 *
 * - `handle_claims`: one row per handle key (the handle lower-cased). A row
 *   with `reserved_until` NULL is held by `user_id`; a row with a time is a
 *   handle given up and reserved until then, for `user_id` (NULL: the account
 *   was deleted, so it is reserved for nobody). The primary key makes the
 *   database the judge when users race for a handle, reservations included:
 *   a claim is one INSERT … ON CONFLICT that takes over the row only when it
 *   is the caller's own or its reservation has expired.
 * - `handle_history`: every change of a user's stored handle, with its kind
 *   (the cooldown counts `change` rows), for the cooldown and the export.
 *   Erased with the account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('handle_claims')
    .addColumn('handle_key', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'uuid', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('reserved_until', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    // A held handle always has a holder; only a reservation can outlive its account.
    .addCheckConstraint(
      'handle_claims_holder_check',
      sql`user_id IS NOT NULL OR reserved_until IS NOT NULL`,
    )
    .execute();
  await db.schema
    .createIndex('handle_claims_user_id_idx')
    .on('handle_claims')
    .column('user_id')
    .execute();
  await sql`
    INSERT INTO handle_claims (handle_key, user_id)
    SELECT lower(handle), user_id FROM profiles WHERE handle IS NOT NULL`.execute(db);

  await db.schema
    .createTable('handle_history')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('old_handle', 'text')
    .addColumn('new_handle', 'text', (col) => col.notNull())
    // first: the first handle; change: another handle; recase: the same in other letter case.
    .addColumn('kind', 'text', (col) =>
      col.notNull().check(sql`kind IN ('first', 'change', 'recase')`),
    )
    .addColumn('changed_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('handle_history_user_id_idx')
    .on('handle_history')
    .columns(['user_id', 'id desc'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('handle_history').execute();
  await db.schema.dropTable('handle_claims').execute();
}
