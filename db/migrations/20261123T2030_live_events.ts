import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * The transactional outbox (docs/LIVE.md).
 *
 * `live_events` holds every event a write announces, inserted by the write
 * itself, so an event exists exactly when its write committed. `id` comes from
 * one identity sequence; one user's writes are serialised by the user's write
 * guard, so one user's events also commit in id order and a reader that has
 * seen id N of a user has seen every earlier event of that user. Across users
 * ids can commit out of order (a write that took id 10 may commit after one
 * that took id 11), which is why no reader keeps a global cursor over ids.
 *
 * `webhook_next_at` is the webhook queue: not null while the event still has
 * to be POSTed (when the next attempt is due), null once it was delivered or
 * given up. The partial indexes keep the queue scans to pending rows only.
 *
 * `webhook_deliveries` logs every attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('live_events')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('payload', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('webhook_attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('webhook_next_at', 'timestamptz', (col) => col.defaultTo(sql`now()`))
    .execute();
  // Replay after an id, and the per-user count retention.
  await db.schema
    .createIndex('live_events_user_id_idx')
    .on('live_events')
    .columns(['user_id', 'id'])
    .execute();
  // The time retention.
  await db.schema
    .createIndex('live_events_created_at_idx')
    .on('live_events')
    .column('created_at')
    .execute();
  // The webhook queue, pending events only: in id order, and per user in id order.
  await sql`
    CREATE INDEX live_events_webhook_queue_idx
    ON live_events (id) INCLUDE (webhook_next_at)
    WHERE webhook_next_at IS NOT NULL`.execute(db);
  await sql`
    CREATE INDEX live_events_webhook_user_idx
    ON live_events (user_id, id)
    WHERE webhook_next_at IS NOT NULL`.execute(db);

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('event_id', 'bigint', (col) =>
      col.notNull().references('live_events.id').onDelete('cascade'),
    )
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('outcome', 'text', (col) =>
      col.notNull().check(sql`outcome IN ('delivered', 'failed', 'gave_up')`),
    )
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event_id_idx')
    .on('webhook_deliveries')
    .columns(['event_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('live_events').execute();
}
