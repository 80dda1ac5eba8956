import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Final standings of closed seasons (docs/SEASONS.md, Archives). A season's
 * `season_archives` row is inserted once (ON CONFLICT DO NOTHING) in the same
 * transaction that copies its board into `season_standings`, so exactly one
 * read, on any instance, cuts the archive. A deleted account's standing
 * stays, without anyone to point at (user_id ON DELETE SET NULL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE season_archives (
      board text PRIMARY KEY,
      closed_at timestamptz NOT NULL,
      archived_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE TABLE season_standings (
      board text NOT NULL REFERENCES season_archives (board) ON DELETE CASCADE,
      rank integer NOT NULL,
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      points integer NOT NULL,
      PRIMARY KEY (board, rank)
    )`.execute(db);
  await sql`CREATE INDEX season_standings_user_idx ON season_standings (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE season_standings`.execute(db);
  await sql`DROP TABLE season_archives`.execute(db);
}
