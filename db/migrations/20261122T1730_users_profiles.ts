import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('issuer', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('onboarded_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('users_issuer_subject_key', ['issuer', 'subject'])
    .execute();

  await db.schema
    .createTable('profiles')
    .addColumn('user_id', 'uuid', (col) =>
      col.primaryKey().references('users.id').onDelete('cascade'),
    )
    .addColumn('name', 'text')
    .addColumn('handle', 'text')
    .addColumn('location', 'text')
    .addColumn('favorite_sport', 'text')
    .addColumn('favorite_team', 'text')
    .addColumn('favorite_player', 'text')
    .addColumn('rival_team', 'text')
    .addColumn('profile_url', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  // Handles are unique case-insensitively ("Ann" blocks "ann"); the database,
  // not application code, is the judge when two users race for one handle.
  await db.schema
    .createIndex('profiles_handle_lower_key')
    .on('profiles')
    .unique()
    .expression(sql`lower(handle)`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('profiles').execute();
  await db.schema.dropTable('users').execute();
}
