import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Fan leaderboards and keyset reads.
 *
 * - `team_key`: the holder's favorite team, lower-cased, so a team board is an
 *   index range instead of a join to profiles. NULL when no team is set.
 *   The profile rules already store favorite_team NFC-normalised and trimmed;
 *   lower() here and in the queries is the one case fold, so both sides agree.
 * - The rank index sorts on `(-points)` so the rank order (more points first,
 *   then earlier reached_at, then user id) is one ascending row value: keyset
 *   pages and "how many are ahead of me" become row comparisons the index
 *   answers, and INCLUDE (points) lets them run as index-only scans.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('leaderboard_entries').addColumn('team_key', 'text').execute();
  await sql`
    UPDATE leaderboard_entries AS e
    SET team_key = lower(p.favorite_team)
    FROM profiles AS p
    WHERE p.user_id = e.user_id AND p.favorite_team IS NOT NULL`.execute(db);

  await db.schema.dropIndex('leaderboard_entries_rank_idx').execute();
  await sql`
    CREATE INDEX leaderboard_entries_rank_idx
    ON leaderboard_entries ((-points), reached_at, user_id) INCLUDE (points)`.execute(db);
  await sql`
    CREATE INDEX leaderboard_entries_team_rank_idx
    ON leaderboard_entries (team_key, (-points), reached_at, user_id) INCLUDE (points)
    WHERE team_key IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('leaderboard_entries_team_rank_idx').execute();
  await db.schema.dropIndex('leaderboard_entries_rank_idx').execute();
  await db.schema
    .createIndex('leaderboard_entries_rank_idx')
    .on('leaderboard_entries')
    .columns(['points desc', 'reached_at', 'user_id'])
    .execute();
  await db.schema.alterTable('leaderboard_entries').dropColumn('team_key').execute();
}
