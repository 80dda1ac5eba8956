import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * `points_ledger.recorded_at`: the app's clock the write chose its week and
 * month boards by (as `activity_events.recorded_at`), beside `created_at`,
 * the write statement's `now()` that every other stamp of the write shares.
 * Which seasons an entry counts in is read from it (a fan's points before
 * onboarding open their season entries: docs/ACTIVITY.md). Entries from
 * before it are NULL and count at `created_at` (the two clocks differ by a
 * request's milliseconds in production). A new nullable column: no rewrite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE points_ledger ADD COLUMN recorded_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE points_ledger DROP COLUMN recorded_at`.execute(db);
}
