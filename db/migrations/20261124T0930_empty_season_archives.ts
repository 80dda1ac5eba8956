import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * A season nobody earned points in is not a season (docs/SEASONS.md): reads
 * of one no longer cut an archive, and the empty archives earlier reads cut
 * (any past week or month could be asked for, and then showed in every
 * user's season list) go. An archive with standings keeps them even when
 * their accounts are deleted (user_id set null), so an archive without any
 * was always one of those.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM season_archives a
    WHERE NOT EXISTS (SELECT 1 FROM season_standings s WHERE s.board = a.board)`.execute(db);
}

/** Nothing to restore: an empty archive held nothing. */
export async function down(): Promise<void> {}
