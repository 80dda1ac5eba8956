import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * The webhook delivery log outlives the events it records. A deleted
 * account's events go with it (live_events.user_id ON DELETE CASCADE), also
 * one a worker is POSTing at that moment; the attempt's log row must still be
 * written when the POST ends, so it may name an event that no longer exists.
 * Without the foreign key the log no longer shrinks with the outbox: the
 * retention deletes old rows by `created_at`, hence the index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (created_at)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX webhook_deliveries_created_at_idx`.execute(db);
  await sql`DELETE FROM webhook_deliveries d
    WHERE NOT EXISTS (SELECT 1 FROM live_events e WHERE e.id = d.event_id)`.execute(db);
  await sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey
    FOREIGN KEY (event_id) REFERENCES live_events (id) ON DELETE CASCADE`.execute(db);
}
