import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * A deleted account leaves nothing that links back to it (docs/ACCOUNT.md).
 *
 * - Its handles are free at once: a reservation for nobody was a free lock
 *   on a name (claim, delete, repeat), and its row, written by the deleting
 *   transaction, dated the deletion. Existing ones are released, and a claim
 *   now always has a user (deleting the user deletes its claims, ON DELETE
 *   CASCADE, unchanged).
 * - Tombstones are timeless: their created, updated and deleted times, the
 *   deleting transaction's clock, become the epoch (deleted_at stays not null,
 *   the mark of a tombstone the ledger's trigger checks).
 * - `account_deleted` events already delivered or given up are erased: the
 *   deleted id they hold is no longer needed by anyone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM handle_claims WHERE user_id IS NULL`.execute(db);
  await sql`ALTER TABLE handle_claims
    DROP CONSTRAINT handle_claims_holder_check,
    ALTER COLUMN user_id SET NOT NULL`.execute(db);
  await sql`UPDATE users
    SET created_at = 'epoch', updated_at = 'epoch', deleted_at = 'epoch'
    WHERE deleted_at IS NOT NULL`.execute(db);
  await sql`DELETE FROM live_events
    WHERE user_id IS NULL AND webhook_next_at IS NULL`.execute(db);
}

/** Released handles and the erased times and events stay gone; only the constraints return. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE handle_claims
    ALTER COLUMN user_id DROP NOT NULL,
    ADD CONSTRAINT handle_claims_holder_check
      CHECK (user_id IS NOT NULL OR reserved_until IS NOT NULL)`.execute(db);
}
