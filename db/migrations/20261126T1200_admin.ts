import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Running the game (docs/CATALOG.md, "Admin API"):
 *
 * - `admin_audit`: every change an admin makes (definitions, adjustments,
 *   bans, reversals, webhook endpoints), who made it (the admin client), when,
 *   and the state before and after. Append-only, like the ledger; a fan's
 *   rows move to the tombstone when the fan deletes the account.
 * - `users.banned_at`: a banned fan's events are refused and they are on no
 *   board until unbanned.
 * - `leaderboard_entries.hidden`: a banned fan's entries stay (with their
 *   points and their place in the tie order) but are counted nowhere and
 *   shown nowhere; unbanning counts them again where they stand.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('admin_audit')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('actor', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target_kind', 'text', (col) => col.notNull())
    .addColumn('target_key', 'text', (col) => col.notNull())
    .addColumn('before', 'jsonb')
    .addColumn('after', 'jsonb')
    .addColumn('at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  // Append-only, but for one UPDATE: when a fan deletes their account, the rows
  // about them name the anonymous tombstone instead (docs/ACCOUNT.md).
  await sql`
    CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.target_kind = 'fan'
         AND to_jsonb(NEW) - 'target_key' = to_jsonb(OLD) - 'target_key' THEN
        RETURN NEW;
      END IF;
      RAISE EXCEPTION 'admin_audit is append-only';
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER admin_audit_no_update_delete
    BEFORE UPDATE OR DELETE ON admin_audit
    FOR EACH ROW EXECUTE FUNCTION admin_audit_append_only()`.execute(db);
  await sql`CREATE INDEX admin_audit_target_idx ON admin_audit (target_kind, target_key, id)`.execute(
    db,
  );

  await sql`ALTER TABLE users ADD COLUMN banned_at timestamptz`.execute(db);
  await sql`ALTER TABLE leaderboard_entries ADD COLUMN hidden boolean NOT NULL DEFAULT false`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE leaderboard_entries DROP COLUMN hidden`.execute(db);
  await sql`ALTER TABLE users DROP COLUMN banned_at`.execute(db);
  await sql`DROP TRIGGER admin_audit_no_update_delete ON admin_audit`.execute(db);
  await db.schema.dropTable('admin_audit').execute();
  await sql`DROP FUNCTION admin_audit_append_only()`.execute(db);
}
