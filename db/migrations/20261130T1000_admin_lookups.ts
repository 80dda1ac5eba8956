import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * What the admin lookups read (docs/CATALOG.md, "Admin API"):
 *
 * - `handle_claims (handle_key COLLATE "C")`: fans whose handle starts with
 *   what an operator typed, in byte order, whatever the database's collation
 *   (LIKE uses a btree only in C order). The table changes only when a
 *   handle does.
 * - `activity_events (user_id, id)`: a fan's events newest first, a keyset
 *   page wherever it starts (the caps index is partial, without reversed
 *   events, and ordered by type and time). The account export reads the
 *   same rows.
 * - `webhook_deliveries (endpoint_id, id)`: one endpoint's delivery log,
 *   newest first.
 * - `webhook_deliveries.event_type`: what each attempt delivered, kept with
 *   the log, which outlives the outbox rows it names. NULL on rows logged
 *   before it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX handle_claims_prefix_idx ON handle_claims (handle_key COLLATE "C")`.execute(
    db,
  );
  await sql`CREATE INDEX activity_events_user_idx ON activity_events (user_id, id)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id)`.execute(
    db,
  );
  await sql`ALTER TABLE webhook_deliveries ADD COLUMN event_type text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_deliveries DROP COLUMN event_type`.execute(db);
  await sql`DROP INDEX webhook_deliveries_endpoint_idx`.execute(db);
  await sql`DROP INDEX activity_events_user_idx`.execute(db);
  await sql`DROP INDEX handle_claims_prefix_idx`.execute(db);
}
