import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Webhook endpoints instead of the one WEBHOOK_URL (docs/LIVE.md, "Webhooks").
 *
 * - `webhook_endpoints`: where events are POSTed. Each has its URL, its
 *   event-type filter (`event_types`, empty = every type), its signing secret
 *   and, for a rotation's overlap, the previous secret with when it expires.
 *   `source` says who manages it: `admin` (the admin API) or `config` (the one
 *   row WEBHOOK_URL/WEBHOOK_SECRET keep in sync at start). `receives_since`:
 *   events created before it are not sent to it (an admin endpoint gets what
 *   happens after it was created; the config one every retained event, as
 *   WEBHOOK_URL always did). Endpoints are retired, never deleted, so the
 *   delivery log and the audit log keep naming them.
 * - `webhook_queue`: one row per (endpoint, event) still to be delivered, with
 *   its own attempts, lease and back-off (`next_at`). `user_id` is the
 *   event's, copied so "this user's earlier event for this endpoint is still
 *   pending" is one index probe. Rows go with their event (retention,
 *   account deletion).
 * - `live_events.webhook_next_at` now means "not yet fanned out to the
 *   endpoints' queues" (the worker does it, so the write path is unchanged);
 *   `webhook_attempts` moves to the queue.
 * - `webhook_deliveries` names the endpoint of each attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('source', 'text', (col) =>
      col
        .notNull()
        .defaultTo('admin')
        .check(sql`source IN ('admin', 'config')`),
    )
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('event_types', sql`text[]`, (col) => col.notNull().defaultTo(sql`'{}'`))
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('enabled', 'boolean', (col) => col.notNull().defaultTo(true))
    .addColumn('receives_since', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('retired_at', 'timestamptz')
    .addCheckConstraint(
      'webhook_endpoints_previous_secret_check',
      sql`(previous_secret IS NULL) = (previous_secret_expires_at IS NULL)`,
    )
    .execute();
  // At most one endpoint comes from the configuration.
  await sql`CREATE UNIQUE INDEX webhook_endpoints_config_idx ON webhook_endpoints (source)
    WHERE source = 'config'`.execute(db);

  await db.schema
    .createTable('webhook_queue')
    .addColumn('endpoint_id', 'uuid', (col) =>
      col.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('event_id', 'bigint', (col) =>
      col.notNull().references('live_events.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid')
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('webhook_queue_pkey', ['endpoint_id', 'event_id'])
    .execute();
  // This user's earlier pending event for this endpoint; and a user's rows at deletion.
  await sql`CREATE INDEX webhook_queue_user_idx ON webhook_queue (user_id, endpoint_id, event_id)`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_queue_event_idx ON webhook_queue (event_id)`.execute(db);

  await sql`ALTER TABLE live_events DROP COLUMN webhook_attempts`.execute(db);
  await sql`ALTER TABLE webhook_deliveries ADD COLUMN endpoint_id uuid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_deliveries DROP COLUMN endpoint_id`.execute(db);
  await sql`ALTER TABLE live_events ADD COLUMN webhook_attempts integer NOT NULL DEFAULT 0`.execute(
    db,
  );
  // What was queued for an endpoint goes back to the one queue.
  await sql`UPDATE live_events e SET webhook_next_at = now()
    WHERE e.webhook_next_at IS NULL
      AND EXISTS (SELECT 1 FROM webhook_queue q WHERE q.event_id = e.id)`.execute(db);
  await db.schema.dropTable('webhook_queue').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
