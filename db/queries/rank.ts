/**
 * Exact rank in flat time (docs/SCALING.md has the reasoning and figures).
 *
 * Rank order on every board: more points first, then the smaller
 * `reached_seq` (who reached that score first), then user id. `reached_seq`
 * comes from one sequence and is taken once per write, so within a board no
 * two entries share it and user id never has to decide. Points are never
 * negative (a CHECK on leaderboard_entries) and fit in 31 bits.
 *
 * `rank_counts(board, team_key, level, points, bucket, shard, n)` — kept in
 * the same statement as every entry change (db/queries/user-write/) — says
 * how many entries of a board (team_key '') or of one team's fans on it fall
 * in each cell. An entry (points p, seq s) counts in one cell per level:
 *
 * | level | points  | bucket    | one cell per                                   |
 * | ----- | ------- | --------- | ---------------------------------------------- |
 * | −3    | p >> 24 | 0         | range of 2^24 scores                           |
 * | −2    | p >> 16 | 0         | range of 2^16 scores (256 per level −3 cell)   |
 * | −1    | p >> 8  | 0         | range of 2^8 scores (256 per level −2 cell)    |
 * | 0     | p       | 0         | score (256 per level −1 cell)                  |
 * | 1     | p       | s >> 24   | score × range of 2^24 sequence numbers         |
 * | 2     | p       | s >> 16   | score × range of 2^16 (256 per level-1 cell)   |
 * | 3     | p       | s >> 8    | score × range of 2^8 (256 per level-2 cell)    |
 *
 * The rank of (p, s) is 1 + the entries with more points + the entries with
 * p points and a smaller seq. More points: at each level −3…0, the cells
 * after p's own inside the same parent cell (keys in (k, k | 255] where k is
 * p's key at that level); an entry with q > p points is in exactly one of
 * them, at the level where q's and p's keys first differ. Same points,
 * smaller seq: whole level-1 cells before s's, whole level-2 cells before
 * s's inside its level-1 cell, whole level-3 cells before s's inside its
 * level-2 cell, and finally the ≤ 255 entries of s's own level-3 cell that
 * come before it (an index range on leaderboard_entries). Each term reads at
 * most 256 cells × SHARDS rows whatever the board's size, the spread of its
 * scores or its tie groups, as long as sequence numbers stay below 2^32
 * (level 1 then has ≤ 256 cells per score; past that it grows by one row per
 * 2^24 writes).
 *
 * A hidden entry (a banned fan's, docs/CATALOG.md "Bans") is in no cell and
 * no tail: it keeps its points and its place in the order, and is counted
 * again when unhidden.
 *
 * The first cell of every parent at levels −3…0 (its key's low byte 0) is
 * never after p's own, so no rank reads it and it is not stored: a board
 * whose points stay below 256 writes no row at levels −3…−1, one below 2^16
 * none at −3 and −2. A move inside a 256-score range cancels out on the
 * coarse levels (−1/+1 merged by key), so small awards write only levels 0–3.
 */
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/** Rows each count cell is spread over. */
export const SHARDS = 4;

/** Every level, as a relation `l(level)`: −3…0 cut points, 1…3 cut sequence numbers. */
const LEVELS = sql`(VALUES (-3), (-2), (-1), (0), (1), (2), (3)) AS l(level)`;

/**
 * The `points` key of points `p` at `level` (the table above): p >> (−8 ×
 * level) below 0, p itself from 0 on. With countBucket, the one place a
 * cell's key is written: the writes (user-write/), the deletion and the
 * rebuild key their count rows by them, and rankExpression reads them by
 * them. `level` is a number for a fixed level, or a column.
 */
export function countPoints(p: RawBuilder<unknown>, level: number | RawBuilder<unknown>) {
  if (typeof level === 'number') {
    return level < 0 ? sql<number>`(${p} >> ${sql.lit(-8 * level)})` : sql<number>`${p}`;
  }
  return sql<number>`CASE WHEN ${level} < 0 THEN ${p} >> (-8 * ${level}) ELSE ${p} END`;
}

/**
 * The bucket of sequence number `seq` at `level` (the table above): 0 at
 * levels ≤ 0, else seq >> (32 − 8 × level).
 */
export function countBucket(seq: RawBuilder<unknown>, level: number | RawBuilder<unknown>) {
  if (typeof level === 'number') {
    return level <= 0 ? sql<string>`0` : sql<string>`(${seq} >> ${sql.lit(32 - 8 * level)})`;
  }
  return sql<string>`CASE WHEN ${level} <= 0 THEN 0 ELSE ${seq} >> (32 - 8 * ${level}) END`;
}

/**
 * 1-based rank (bigint, as text) of a position on `board`, among the fans of
 * `teamKey` when given (the entries' stored key, db/team-key.ts), else on the
 * whole board. Counts only entries strictly ahead, so the entry itself, if
 * stored at exactly that position, is not counted.
 *
 * `holder`: the user who takes this position in a write whose snapshot still
 * holds their stored entry on the board (the write statement's). That entry
 * is not counted even when it is ahead: a write that lowers the points
 * (a reversal) leaves it.
 */
export function rankExpression(position: {
  board: Expression<string>;
  teamKey: Expression<string> | undefined;
  points: Expression<number>;
  seq: Expression<string>;
  holder?: Expression<string>;
}): RawBuilder<string> {
  const { board, points, seq } = position;
  const team = position.teamKey ?? sql<string>`''`;
  const cells = (level: number, where: RawBuilder<unknown>) => sql`coalesce((
      SELECT sum(c.n) FROM rank_counts c
      WHERE c.board = ${board} AND c.team_key = ${team} AND c.level = ${sql.lit(level)}
        AND ${where}), 0)`;
  const s = sql`(${seq})::bigint`;
  const p = sql`(${points})::integer`;
  // More points: the cells after p's own inside its parent cell, at each level −3…0.
  const after = (level: -3 | -2 | -1 | 0) => {
    const key = countPoints(p, level);
    return cells(level, sql`c.points > ${key} AND c.points <= (${key} | 255)`);
  };
  const tail = sql`(
      SELECT count(*) FROM leaderboard_entries x
      WHERE x.board = ${board}
        ${position.teamKey === undefined ? sql`` : sql`AND x.team_key = ${team}`}
        AND (-x.points) = -${p} AND NOT x.hidden
        AND x.reached_seq >= (${countBucket(s, 3)} << 8) AND x.reached_seq < ${s})`;
  // Cells of s's level below `level` that come before s's own: from the first
  // cell inside s's cell one level up (its bucket << 8) to s's cell.
  const before = (level: 2 | 3) =>
    sql`c.points = ${p} AND c.bucket >= (${countBucket(s, level - 1)} << 8)
        AND c.bucket < ${countBucket(s, level)}`;
  const holder =
    position.holder === undefined
      ? sql``
      : sql`- (SELECT count(*) FROM leaderboard_entries h
      WHERE h.board = ${board} AND h.user_id = ${position.holder} AND NOT h.hidden
        ${position.teamKey === undefined ? sql`` : sql`AND h.team_key = ${team}`}
        AND (-h.points, h.reached_seq) < (-${p}, ${s}))`;
  return sql<string>`(1
    + ${after(-3)} + ${after(-2)} + ${after(-1)} + ${after(0)}
    + ${cells(1, sql`c.points = ${p} AND c.bucket < ${countBucket(s, 1)}`)}
    + ${cells(2, before(2))}
    + ${cells(3, before(3))}
    + ${tail} ${holder})::bigint::text`;
}

/**
 * Entries a rank near a known one reads at most (rankFrom): past that, the
 * full count (rankExpression) is cheaper than walking the entries between.
 */
export const NEAR_RANK_ENTRIES = 256;

/**
 * The rank of position `to` (rankExpression's, with its holder) from the
 * rank `from.rank` the holder's stored entry has at `from`: that rank, less
 * the visible entries of others strictly between the two positions when `to`
 * is ahead, plus them when it is behind. Every rank counts the same entries
 * (visible, not the holder's, strictly ahead), so the two differ by exactly
 * those between. An award moves a fan past a few entries, so this reads a
 * short range of the rank index instead of the count cells; when more than
 * NEAR_RANK_ENTRIES lie between, or `from.rank` is null (no stored entry,
 * or on another team), it is rankExpression's full count.
 */
export function rankFrom(position: {
  board: Expression<string>;
  teamKey: Expression<string> | undefined;
  points: Expression<number>;
  seq: Expression<string>;
  holder: Expression<string>;
  from: { rank: Expression<string>; points: Expression<number>; seq: Expression<string> };
}): RawBuilder<string> {
  const { board, holder, from } = position;
  const to = [sql`-(${position.points})::integer`, sql`(${position.seq})::bigint`] as const;
  const at = [sql`-(${from.points})::integer`, sql`(${from.seq})::bigint`] as const;
  const ahead = sql`(${to[0]}, ${to[1]}) < (${at[0]}, ${at[1]})`;
  // Row constructors on both sides, so the bounds are a range of the rank index.
  const bound = (first: typeof to, second: typeof to) =>
    sql`(CASE WHEN ${ahead} THEN ${first[0]} ELSE ${second[0]} END,
         CASE WHEN ${ahead} THEN ${first[1]} ELSE ${second[1]} END)`;
  const key = sql`(-x.points, x.reached_seq)`;
  const between = sql`(SELECT count(*) FROM (
      SELECT 1 FROM leaderboard_entries x
      WHERE x.board = ${board}
        ${position.teamKey === undefined ? sql`` : sql`AND x.team_key = ${position.teamKey}`}
        AND NOT x.hidden AND x.user_id <> ${holder}
        AND ${key} > ${bound(to, at)}
        AND ${key} < ${bound(at, to)}
      LIMIT ${sql.lit(NEAR_RANK_ENTRIES)}) z)`;
  // The count of those between, once (OFFSET 0 keeps it from being inlined
  // into both of its uses), and only with a known rank; the full count once.
  return sql<string>`(SELECT CASE WHEN d.c < ${sql.lit(NEAR_RANK_ENTRIES)}
        THEN ((${from.rank})::bigint + CASE WHEN ${ahead} THEN -d.c ELSE d.c END)::text
        ELSE ${rankExpression(position)} END
      FROM (SELECT CASE WHEN ${from.rank} IS NOT NULL THEN ${between} END AS c OFFSET 0) d)`;
}

/** An entry's place in the order: what its count rows are keyed by. */
export interface EntryKey {
  points: number;
  /** reached_seq (bigint as text); null = the sequence number this write takes. */
  seq: string | null;
  /** The stored team key, or `null` for no team; 'new' = teamKey(the write's favoriteTeam). */
  teamKey: string | null | 'new';
}

/**
 * One position to take off (n = −1) or add to (n = +1) the counts of a board
 * or of a team on it, before the statement fills in the new seq and team
 * key; addCounts turns it into its cells.
 */
export interface CountDelta {
  board: string;
  team_key: string | null;
  new_team: boolean;
  points: number;
  seq: string | null;
  n: number;
}

/**
 * The positions an entry counts at, as deltas of `n` (−1 to leave a
 * position, +1 to take one): on the whole board and, with a team, on the
 * team's rows.
 */
export function countDeltas(board: string, key: EntryKey, n: 1 | -1): CountDelta[] {
  const base = { board, points: key.points, seq: key.seq, n };
  const deltas: CountDelta[] = [{ ...base, team_key: '', new_team: false }];
  if (key.teamKey === 'new') deltas.push({ ...base, team_key: null, new_team: true });
  else if (key.teamKey !== null) deltas.push({ ...base, team_key: key.teamKey, new_team: false });
  return deltas;
}

/**
 * The cells of `positions` — a relation with columns board, team_key (null:
 * counted nowhere), points, seq and n — one per position and level, merged
 * by key: (board, team_key, level, points, bucket, n). The first cell of a
 * parent at levels −3…0 is left out (never read: the comment at the top).
 */
function cellsOf(positions: RawBuilder<unknown>): RawBuilder<unknown> {
  const key = countPoints(sql`p.points`, sql`l.level`);
  return sql`SELECT p.board, p.team_key, l.level, ${key} AS points,
           ${countBucket(sql`p.seq`, sql`l.level`)} AS bucket, sum(p.n) AS n
    FROM (${positions}) AS p CROSS JOIN ${LEVELS}
    WHERE p.team_key IS NOT NULL AND (l.level > 0 OR (${key} & 255) <> 0)
    GROUP BY 1, 2, 3, 4, 5`;
}

/**
 * Adds the cells of `positions` (cellsOf) to rank_counts, in key order so two
 * writers never wait on each other's rows in opposite orders; a key whose −1
 * and +1 cancel writes nothing. Every cell of one statement goes to the same
 * shard, drawn once per statement (an uncorrelated subquery: one InitPlan):
 * two concurrent statements then share no count row unless they drew the
 * same shard (1 in SHARDS), where a shard drawn per cell made two writes of
 * a few dozen cells each at the same scores (every fan's first onboarding,
 * the season boards' few distinct scores) share one almost surely, and each
 * wait for the other's commit. The write statement, the deletion and nothing
 * else change counts this way.
 */
export function addCounts(positions: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT k.board, k.team_key, k.level, k.points, k.bucket,
           (SELECT floor(random() * ${sql.lit(SHARDS)})::smallint), k.n
    FROM (${cellsOf(positions)}) AS k
    WHERE k.n <> 0
    ORDER BY k.board, k.team_key, k.level, k.points, k.bucket
    ON CONFLICT (board, team_key, level, points, bucket, shard)
      DO UPDATE SET n = rank_counts.n + excluded.n`;
}

/**
 * Each entry of `entries` (alias e) once on its board's rows and once on its
 * team's. A hidden entry (a banned fan's) is counted nowhere: callers pass
 * the entries whose counts change (the ban itself passes the entries it hides).
 */
export function positionsOf(entries: RawBuilder<unknown>, n: RawBuilder<unknown>) {
  return sql`SELECT e.board, t.team_key, e.points, e.reached_seq AS seq, ${n} AS n
    FROM ${entries} CROSS JOIN LATERAL (VALUES (''), (e.team_key)) AS t(team_key)`;
}

/**
 * Recomputes every count from the entries, written in key order so that the
 * cells one level's sum reads share a few heap pages (an index scan that
 * visits the heap, as one does for cells written since the last vacuum,
 * then reads those pages, not one page per cell). For bulk loads
 * (bench:seed) and tests that write entries directly; the service never
 * needs it.
 */
export async function rebuildRankCounts(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // TRUNCATE locks the table: writers wait for the rebuild instead of racing it.
    await sql`TRUNCATE rank_counts`.execute(trx);
    await sql`
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT k.board, k.team_key, k.level, k.points, k.bucket, 0, k.n
    FROM (${cellsOf(
      positionsOf(sql`(SELECT * FROM leaderboard_entries WHERE NOT hidden) e`, sql`1`),
    )}) AS k
    ORDER BY k.board, k.team_key, k.level, k.points, k.bucket`.execute(trx);
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
      RETURNING board, points, reached_seq, team_key, hidden
    )
    ${addCounts(positionsOf(sql`(SELECT * FROM gone WHERE NOT hidden) e`, sql`-1`))}`.execute(db);
}
