import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Account deletion with an append-only ledger.
 *
 * - `users.deleted_at`: set only on tombstones. Deleting an account deletes
 *   its users row (profile, quests, board entries and handle history go with
 *   it) but moves its ledger rows to a new tombstone users row with a random
 *   id and no identity, so the ledger keeps every award that was ever made
 *   while no row points back at the person.
 * - The ledger trigger allows exactly that one change: an UPDATE that only
 *   moves rows to a tombstone. Every other UPDATE or DELETE still fails.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('deleted_at', 'timestamptz').execute();
  await sql`
    CREATE OR REPLACE FUNCTION points_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE'
         AND to_jsonb(NEW) - 'user_id' = to_jsonb(OLD) - 'user_id'
         AND EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND deleted_at IS NOT NULL)
      THEN
        RETURN NEW;
      END IF;
      RAISE EXCEPTION 'points_ledger is append-only';
    END
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION points_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'points_ledger is append-only';
    END
    $$`.execute(db);
  await db.schema.alterTable('users').dropColumn('deleted_at').execute();
}
