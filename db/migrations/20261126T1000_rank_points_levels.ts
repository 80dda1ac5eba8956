import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Rank in flat time for any spread of scores (docs/SCALING.md). Until now
 * the entries with more points than a position were summed from one
 * `rank_counts` level-0 cell per distinct score above it: flat for a few
 * quest-sized scores, linear in the distinct scores once points come from
 * activity. Levels −1, −2 and −3 count the entries per range of 2^8, 2^16
 * and 2^24 scores (`points` holds points >> 8, >> 16, >> 24; bucket 0), so a
 * rank sums at most 256 cells per level.
 *
 * - leaderboard_entries.points ≥ 0 becomes a CHECK: the levels cut points
 *   by shifting, which only orders non-negative numbers.
 * - Only cells a rank can read are kept: at levels −3…0 the first cell of
 *   each parent (key & 255 = 0) is never after anything, so this drops the
 *   level-0 rows of scores 0, 256, 512, … and fills levels −1…−3 without
 *   them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE leaderboard_entries
    ADD CONSTRAINT leaderboard_entries_points_check CHECK (points >= 0)`.execute(db);
  await sql`ALTER TABLE rank_counts DROP CONSTRAINT rank_counts_level_check,
    ADD CONSTRAINT rank_counts_level_check CHECK (level BETWEEN -3 AND 3)`.execute(db);
  await sql`DELETE FROM rank_counts WHERE level = 0 AND (points & 255) = 0`.execute(db);
  await sql`
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT e.board, t.team_key, l.level, e.points >> (-8 * l.level), 0, 0, count(*)
    FROM leaderboard_entries e
    CROSS JOIN LATERAL (VALUES (''), (e.team_key)) AS t(team_key)
    CROSS JOIN (VALUES (-3), (-2), (-1)) AS l(level)
    WHERE t.team_key IS NOT NULL AND ((e.points >> (-8 * l.level)) & 255) <> 0
    GROUP BY 1, 2, 3, 4`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM rank_counts WHERE level < 0`.execute(db);
  await sql`
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT e.board, t.team_key, 0, e.points, 0, 0, count(*)
    FROM leaderboard_entries e
    CROSS JOIN LATERAL (VALUES (''), (e.team_key)) AS t(team_key)
    WHERE t.team_key IS NOT NULL AND (e.points & 255) = 0
    GROUP BY 1, 2, 3, 4`.execute(db);
  await sql`ALTER TABLE rank_counts DROP CONSTRAINT rank_counts_level_check,
    ADD CONSTRAINT rank_counts_level_check CHECK (level BETWEEN 0 AND 3)`.execute(db);
  await sql`ALTER TABLE leaderboard_entries
    DROP CONSTRAINT leaderboard_entries_points_check`.execute(db);
}
