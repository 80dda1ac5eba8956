/**
 * Exact rank in flat time (docs/SCALING.md has the reasoning and figures).
 *
 * Rank order on every board: more points first, then the smaller
 * `reached_seq` (who reached that score first), then user id. `reached_seq`
 * comes from one sequence and is taken once per write, so within a board no
 * two entries share it and user id never has to decide.
 *
 * `rank_counts(board, team_key, level, points, bucket, shard, n)` — kept in
 * the same statement as every entry change (db/queries/user-write/) — says
 * how many entries of a board (team_key '') or of one team's fans on it fall
 * in each cell:
 *
 * | level | bucket        | one row per                                   |
 * | ----- | ------------- | --------------------------------------------- |
 * | 0     | 0             | score                                         |
 * | 1     | seq >> 24     | score × range of 2^24 sequence numbers        |
 * | 2     | seq >> 16     | score × range of 2^16 (256 per level-1 cell)  |
 * | 3     | seq >> 8      | score × range of 2^8 (256 per level-2 cell)   |
 *
 * Each cell is split over `SHARDS` rows (a write adds to a random one; only
 * sums are read), so a popular score is not one hot row. The rank of
 * (p, s) is 1 + the entries with more points (level 0) + the entries with
 * p points and a smaller seq, walked down the levels: whole level-1 cells
 * before s's, whole level-2 cells before s's inside its level-1 cell, whole
 * level-3 cells before s's inside its level-2 cell, and finally the ≤ 255
 * entries of s's own level-3 cell that come before it (an index range on
 * leaderboard_entries). Each term reads at most 256 × SHARDS index entries
 * whatever the board's size or the tie group's, as long as sequence numbers
 * stay below 2^32 (level 1 then has ≤ 256 cells per score; past that it
 * grows by one row per 2^24 writes).
 */
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/** Rows each count cell is spread over. */
export const SHARDS = 4;

/**
 * The bucket of sequence number `seq` at `level` (the table above): 0 at
 * level 0, else seq >> (32 − 8 × level). The one place the formula is
 * written: the writes (user-write/), the deletion and the rebuild key
 * their count rows by it, and rankExpression reads them by it. `level` is a
 * number for a fixed level, or a column.
 */
export function countBucket(seq: RawBuilder<unknown>, level: number | RawBuilder<unknown>) {
  if (typeof level === 'number') {
    return level === 0 ? sql<string>`0` : sql<string>`(${seq} >> ${sql.lit(32 - 8 * level)})`;
  }
  return sql<string>`CASE WHEN ${level} = 0 THEN 0 ELSE ${seq} >> (32 - 8 * ${level}) END`;
}

/**
 * 1-based rank (bigint, as text) of a position on `board`, among the fans of
 * `teamKey` when given (the entries' stored key, db/team-key.ts), else on the
 * whole board. Counts only entries strictly ahead, so the entry itself, if
 * stored at exactly that position, is not counted.
 */
export function rankExpression(position: {
  board: Expression<string>;
  teamKey: Expression<string> | undefined;
  points: Expression<number>;
  seq: Expression<string>;
}): RawBuilder<string> {
  const { board, points, seq } = position;
  const team = position.teamKey ?? sql<string>`''`;
  const cells = (level: number, where: RawBuilder<unknown>) => sql`coalesce((
      SELECT sum(c.n) FROM rank_counts c
      WHERE c.board = ${board} AND c.team_key = ${team} AND c.level = ${sql.lit(level)}
        AND ${where}), 0)`;
  const s = sql`(${seq})::bigint`;
  const p = sql`(${points})::integer`;
  const tail = sql`(
      SELECT count(*) FROM leaderboard_entries x
      WHERE x.board = ${board}
        ${position.teamKey === undefined ? sql`` : sql`AND x.team_key = ${team}`}
        AND (-x.points) = -${p}
        AND x.reached_seq >= (${countBucket(s, 3)} << 8) AND x.reached_seq < ${s})`;
  // Cells of s's level below `level` that come before s's own: from the first
  // cell inside s's cell one level up (its bucket << 8) to s's cell.
  const before = (level: 2 | 3) =>
    sql`c.points = ${p} AND c.bucket >= (${countBucket(s, level - 1)} << 8)
        AND c.bucket < ${countBucket(s, level)}`;
  return sql<string>`(1
    + ${cells(0, sql`c.points > ${p}`)}
    + ${cells(1, sql`c.points = ${p} AND c.bucket < ${countBucket(s, 1)}`)}
    + ${cells(2, before(2))}
    + ${cells(3, before(3))}
    + ${tail})::bigint::text`;
}

/** An entry's place in the order: what its count rows are keyed by. */
export interface EntryKey {
  points: number;
  /** reached_seq (bigint as text); null = the sequence number this write takes. */
  seq: string | null;
  /** The stored team key, or `null` for no team; 'new' = teamKey(the write's favoriteTeam). */
  teamKey: string | null | 'new';
}

/** One change to rank_counts before the statement fills in the new seq and merges by key. */
export interface CountDelta {
  board: string;
  team_key: string | null;
  new_team: boolean;
  level: number;
  points: number;
  seq: string | null;
  n: number;
}

/**
 * The count rows an entry contributes to, as deltas of `n` (−1 to leave a
 * position, +1 to take one): four levels on the whole board and, with a
 * team, four on the team's rows.
 */
export function countDeltas(board: string, key: EntryKey, n: 1 | -1): CountDelta[] {
  const teams: Array<{ team_key: string | null; new_team: boolean }> = [
    { team_key: '', new_team: false },
  ];
  if (key.teamKey === 'new') teams.push({ team_key: null, new_team: true });
  else if (key.teamKey !== null) teams.push({ team_key: key.teamKey, new_team: false });
  return teams.flatMap((team) =>
    [0, 1, 2, 3].map((level) => ({ board, ...team, level, points: key.points, seq: key.seq, n })),
  );
}

/**
 * Recomputes every count from the entries. For bulk loads (bench:seed) and
 * tests that write entries directly; the service never needs it.
 */
export async function rebuildRankCounts(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // TRUNCATE locks the table: writers wait for the rebuild instead of racing it.
    await sql`TRUNCATE rank_counts`.execute(trx);
    await sql`
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT e.board, t.team_key, l.level, e.points,
           ${countBucket(sql`e.reached_seq`, sql`l.level`)}, 0, count(*)
    FROM leaderboard_entries e
    CROSS JOIN LATERAL (VALUES (''), (e.team_key)) AS t(team_key)
    CROSS JOIN (VALUES (0), (1), (2), (3)) AS l(level)
    WHERE t.team_key IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5`.execute(trx);
  });
}

/**
 * Deletes every board entry of the user and takes each off its count rows,
 * in one statement (account deletion: the entries must not just cascade
 * away, or every rank below them would stay one too high).
 */
export async function deleteBoardEntries(db: Kysely<Database>, userId: string): Promise<void> {
  await sql`
    WITH gone AS (
      DELETE FROM leaderboard_entries WHERE user_id = ${userId}
      RETURNING board, points, reached_seq, team_key
    )
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT k.board, k.team_key, k.level, k.points, k.bucket,
           floor(random() * ${SHARDS})::smallint, -count(*)
    FROM (
      SELECT g.board, t.team_key, l.level, g.points,
             ${countBucket(sql`g.reached_seq`, sql`l.level`)} AS bucket
      FROM gone g
      CROSS JOIN LATERAL (VALUES (''), (g.team_key)) AS t(team_key)
      CROSS JOIN (VALUES (0), (1), (2), (3)) AS l(level)
      WHERE t.team_key IS NOT NULL
    ) AS k
    GROUP BY k.board, k.team_key, k.level, k.points, k.bucket
    ORDER BY k.board, k.team_key, k.level, k.points, k.bucket
    ON CONFLICT (board, team_key, level, points, bucket, shard)
      DO UPDATE SET n = rank_counts.n + excluded.n`.execute(db);
}
