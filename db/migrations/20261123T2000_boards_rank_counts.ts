import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Boards, commit-ordered ties and rank in flat time (docs/SCALING.md).
 *
 * - `leaderboard_entries` is keyed by (board, user_id). `board` names the
 *   period and season: 'all' (the all-time board, which also keeps the
 *   balance), 'week:2026-W47' (ISO week, UTC), 'month:2026-11' (UTC month).
 *   Season boards are filled from the ledger: points earned in the window.
 * - `reached_seq` replaces `reached_at` as the tie-breaker: a number from the
 *   sequence `leaderboard_reached_seq`, taken in the write that changes the
 *   entry's points. Backfilled in (reached time, user id) order, which keeps
 *   every existing tie order. reached_at stays, for display.
 * - `rank_counts` holds, per board and team (team_key '' = the whole board),
 *   how many entries have each score (level 0) and how many fall in each
 *   range of 2^24, 2^16 and 2^8 sequence numbers within a score (levels 1–3).
 *   The rank of (points p, seq s) is a sum over ≤ 256 rows per level plus a
 *   count of ≤ 255 entries: flat whatever the board or tie size.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE SEQUENCE leaderboard_reached_seq AS bigint`.execute(db);

  await sql`ALTER TABLE leaderboard_entries
    ADD COLUMN board text NOT NULL DEFAULT 'all',
    ADD COLUMN reached_seq bigint`.execute(db);
  await sql`ALTER TABLE leaderboard_entries DROP CONSTRAINT leaderboard_entries_pkey`.execute(db);
  await sql`ALTER TABLE leaderboard_entries
    ADD CONSTRAINT leaderboard_entries_pkey PRIMARY KEY (board, user_id)`.execute(db);

  // Season boards from the ledger: points earned in each ISO week and UTC month.
  await sql`
    INSERT INTO leaderboard_entries (board, user_id, points, reached_at, updated_at, team_key)
    SELECT s.board, s.user_id, s.points, s.reached_at, s.reached_at, e.team_key
    FROM (
      SELECT 'week:' || to_char(created_at AT TIME ZONE 'UTC', 'IYYY-"W"IW') AS board,
             user_id, sum(delta)::integer AS points, max(created_at) AS reached_at
      FROM points_ledger GROUP BY 1, 2
      UNION ALL
      SELECT 'month:' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM'),
             user_id, sum(delta)::integer, max(created_at)
      FROM points_ledger GROUP BY 1, 2
    ) AS s
    JOIN leaderboard_entries e ON e.user_id = s.user_id AND e.board = 'all'`.execute(db);

  await sql`
    UPDATE leaderboard_entries e SET reached_seq = o.seq
    FROM (SELECT board, user_id, row_number() OVER (ORDER BY reached_at, user_id, board) AS seq
          FROM leaderboard_entries) AS o
    WHERE o.board = e.board AND o.user_id = e.user_id`.execute(db);
  await sql`
    SELECT setval('leaderboard_reached_seq',
                  coalesce((SELECT max(reached_seq) FROM leaderboard_entries), 0) + 1, false)`.execute(
    db,
  );
  await sql`ALTER TABLE leaderboard_entries
    ALTER COLUMN reached_seq SET NOT NULL,
    ALTER COLUMN board DROP DEFAULT`.execute(db);

  await sql`DROP INDEX leaderboard_entries_rank_idx`.execute(db);
  await sql`DROP INDEX leaderboard_entries_team_rank_idx`.execute(db);
  // Pages, neighbours and the ≤ 255-entry tail of a rank: ranges of these.
  await sql`
    CREATE INDEX leaderboard_entries_rank_idx
    ON leaderboard_entries (board, (-points), reached_seq, user_id) INCLUDE (points)`.execute(db);
  await sql`
    CREATE INDEX leaderboard_entries_team_rank_idx
    ON leaderboard_entries (board, team_key, (-points), reached_seq, user_id) INCLUDE (points)
    WHERE team_key IS NOT NULL`.execute(db);
  // A user's entries on every board (account deletion, the foreign key's cascade).
  await sql`CREATE INDEX leaderboard_entries_user_idx ON leaderboard_entries (user_id)`.execute(db);

  await sql`
    CREATE TABLE rank_counts (
      board text NOT NULL,
      team_key text NOT NULL,
      level smallint NOT NULL CHECK (level BETWEEN 0 AND 3),
      points integer NOT NULL,
      bucket bigint NOT NULL,
      shard smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (board, team_key, level, points, bucket, shard)
    )`.execute(db);
  await sql`
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT e.board, t.team_key, l.level, e.points,
           CASE WHEN l.level = 0 THEN 0 ELSE e.reached_seq >> (32 - 8 * l.level) END, 0, count(*)
    FROM leaderboard_entries e
    CROSS JOIN LATERAL (VALUES (''), (e.team_key)) AS t(team_key)
    CROSS JOIN (VALUES (0), (1), (2), (3)) AS l(level)
    WHERE t.team_key IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE rank_counts`.execute(db);
  await sql`DELETE FROM leaderboard_entries WHERE board <> 'all'`.execute(db);
  await sql`DROP INDEX leaderboard_entries_user_idx`.execute(db);
  await sql`DROP INDEX leaderboard_entries_team_rank_idx`.execute(db);
  await sql`DROP INDEX leaderboard_entries_rank_idx`.execute(db);
  await sql`ALTER TABLE leaderboard_entries DROP CONSTRAINT leaderboard_entries_pkey`.execute(db);
  await sql`ALTER TABLE leaderboard_entries
    ADD CONSTRAINT leaderboard_entries_pkey PRIMARY KEY (user_id),
    DROP COLUMN board,
    DROP COLUMN reached_seq`.execute(db);
  await sql`DROP SEQUENCE leaderboard_reached_seq`.execute(db);
  await sql`
    CREATE INDEX leaderboard_entries_rank_idx
    ON leaderboard_entries ((-points), reached_at, user_id) INCLUDE (points)`.execute(db);
  await sql`
    CREATE INDEX leaderboard_entries_team_rank_idx
    ON leaderboard_entries (team_key, (-points), reached_at, user_id) INCLUDE (points)
    WHERE team_key IS NOT NULL`.execute(db);
}
