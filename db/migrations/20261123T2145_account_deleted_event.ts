import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * The `account_deleted` event (docs/ACCOUNT.md). A deleted account's own
 * events go with it (ON DELETE CASCADE, unchanged), but the deletion itself
 * must still reach the webhook receiver after the users row is gone, so an
 * event may now belong to no user: user_id is null on `account_deleted` rows
 * only, and the deleted id travels in the payload.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE live_events ALTER COLUMN user_id DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE live_events ADD CONSTRAINT live_events_user_id_check
    CHECK (user_id IS NOT NULL OR type = 'account_deleted')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM live_events WHERE user_id IS NULL`.execute(db);
  await sql`ALTER TABLE live_events DROP CONSTRAINT live_events_user_id_check`.execute(db);
  await sql`ALTER TABLE live_events ALTER COLUMN user_id SET NOT NULL`.execute(db);
}
