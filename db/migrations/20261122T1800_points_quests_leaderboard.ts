import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('points_ledger')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('delta', 'integer', (col) => col.notNull().check(sql`delta <> 0`))
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('quest_id', 'text')
    .addColumn('idempotency_key', 'text', (col) => col.notNull())
    .addColumn('balance_after', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    // Every award happens at most once per user, whatever the concurrency.
    .addUniqueConstraint('points_ledger_user_key', ['user_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('points_ledger_user_id_idx')
    .on('points_ledger')
    .columns(['user_id', 'id desc'])
    .execute();

  // Append-only: history is corrected by new entries, never by rewriting old ones.
  await sql`
    CREATE FUNCTION points_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'points_ledger is append-only';
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER points_ledger_no_update_delete
    BEFORE UPDATE OR DELETE ON points_ledger
    FOR EACH ROW EXECUTE FUNCTION points_ledger_append_only()`.execute(db);

  await db.schema
    .createTable('leaderboard_entries')
    .addColumn('user_id', 'uuid', (col) =>
      col.primaryKey().references('users.id').onDelete('cascade'),
    )
    .addColumn('points', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('reached_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  // Rank order: more points first, then who reached that score first, then user id.
  await db.schema
    .createIndex('leaderboard_entries_rank_idx')
    .on('leaderboard_entries')
    .columns(['points desc', 'reached_at', 'user_id'])
    .execute();

  await db.schema
    .createTable('user_quests')
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('quest_id', 'text', (col) => col.notNull())
    .addColumn('progress', 'integer', (col) => col.notNull())
    .addColumn('target', 'integer', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().check(sql`status IN ('in_progress', 'completed')`),
    )
    .addColumn('completed_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('user_quests_pkey', ['user_id', 'quest_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_quests').execute();
  await db.schema.dropTable('leaderboard_entries').execute();
  await sql`DROP TRIGGER points_ledger_no_update_delete ON points_ledger`.execute(db);
  await db.schema.dropTable('points_ledger').execute();
  await sql`DROP FUNCTION points_ledger_append_only()`.execute(db);
}
