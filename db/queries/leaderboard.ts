import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { ALL_TIME_BOARD, type Database } from '../schema.js';
import { teamKey as teamKeyOf } from '../team-key.js';
import { rankExpression } from './rank.js';

/**
 * The leaderboard's one rank order: more points first, then whoever reached
 * that score first (the smaller reached_seq), then user id. It is a strict
 * total order, so ranks are deterministic and keyset pages never skip or
 * repeat an entry under ties.
 *
 * It is written once, as the ascending row value `(-points, reached_seq,
 * user_id)` — the columns of leaderboard_entries_rank_idx and
 * leaderboard_entries_team_rank_idx after `board` (and `team_key`) — so every
 * comparison and ORDER BY below is an index range. The rank of one entry is
 * not a count of the entries ahead (O(rank)) but db/queries/rank.ts's sum of
 * counts (flat).
 */
function rankColumns(
  alias: string,
): [Expression<unknown>, Expression<unknown>, Expression<unknown>] {
  return [
    sql`-${sql.ref(`${alias}.points`)}`,
    sql.ref(`${alias}.reachedSeq`),
    sql.ref(`${alias}.userId`),
  ];
}

/** The rank key as one row value, for comparisons. */
function rankKey(alias: string): Expression<unknown> {
  const [points, seq, userId] = rankColumns(alias);
  return sql`(${points}, ${seq}, ${userId})`;
}

/** ORDER BY the rank key of the entries aliased `e`: 'asc' is top of the board first. */
function inRankOrder<
  Q extends { orderBy(expression: Expression<unknown>, direction: 'asc' | 'desc'): Q },
>(query: Q, direction: 'asc' | 'desc' = 'asc'): Q {
  return rankColumns('e').reduce((ordered, column) => ordered.orderBy(column, direction), query);
}

/** A position in the rank order of a board. */
export interface RankPosition {
  points: number;
  /** reached_seq: a bigint, as decimal text. */
  seq: string;
  userId: string;
}

/** Where a page ended: the last entry's position and the rank it was served with. */
export interface PageEnd {
  position: RankPosition;
  rank: number;
}

function positionKey(position: RankPosition): Expression<unknown> {
  return sql`(${-position.points}::integer, ${position.seq}::bigint, ${position.userId}::uuid)`;
}

function compare(
  left: Expression<unknown>,
  op: '<' | '>',
  right: Expression<unknown>,
): Expression<SqlBool> {
  return sql<SqlBool>`${left} ${sql.raw(op)} ${right}`;
}

/** A board filter's team key: the same teamKey() the team_key column is filled with. */
const teamKey = (team: string) => sql<string>`${teamKeyOf(team)}::text`;

export interface RankedEntry {
  userId: string;
  handle: string | null;
  name: string | null;
  profileUrl: string | null;
  points: number;
  rank: number;
}

export interface PositionedEntry extends RankedEntry {
  position: RankPosition;
}

/** Which board, and optionally which team's fans on it. */
export interface BoardFilter {
  /** Defaults to the all-time board (db/schema.ts describes board names). */
  board?: string | undefined;
  team?: string | undefined;
}

function entries(db: Kysely<Database>, filter: BoardFilter, options: { hidden?: boolean } = {}) {
  let query = db
    .selectFrom('leaderboardEntries as e')
    .leftJoin('profiles as p', 'p.userId', 'e.userId')
    .select([
      'e.userId',
      'p.handle',
      'p.name',
      'p.profileUrl',
      'e.points',
      sql<string>`e.reached_seq::text`.as('seqKey'),
    ])
    .where('e.board', '=', filter.board ?? ALL_TIME_BOARD);
  // A banned fan's entries are shown nowhere (docs/CATALOG.md, "Bans"), but to the fan.
  if (!options.hidden) query = query.where('e.hidden', '=', false);
  if (filter.team !== undefined) query = query.where('e.teamKey', '=', teamKey(filter.team));
  return query;
}

type EntryRow = Awaited<ReturnType<ReturnType<typeof entries>['execute']>>[number];

function positioned(row: EntryRow, rank: number): PositionedEntry {
  const { seqKey, ...entry } = row;
  return { ...entry, rank, position: { points: row.points, seq: seqKey, userId: row.userId } };
}

/**
 * The user's entry with its 1-based rank on the board or, with `team`,
 * among the fans of that team (undefined when the user has no entry there or
 * is not a fan of `team`). One statement; its cost does not grow with the
 * board (db/queries/rank.ts). With `hidden`, a banned fan's entry too, ranked
 * where it would stand (their own reads).
 */
export async function findRankedEntry(
  db: Kysely<Database>,
  userId: string,
  filter: BoardFilter = {},
  options: { hidden?: boolean } = {},
): Promise<PositionedEntry | undefined> {
  const row = await entries(db, filter, options)
    .select(
      rankExpression({
        board: sql.ref('e.board'),
        teamKey: filter.team === undefined ? undefined : sql.ref('e.teamKey'),
        points: sql.ref('e.points'),
        seq: sql.ref('e.reachedSeq'),
      }).as('rank'),
    )
    .where('e.userId', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { rank, ...entry } = row;
  return positioned(entry, Number(rank));
}

/**
 * Up to `limit` entries in rank order after `after` (from the top without
 * it). Ranks continue from the rank the previous page ended with, so a page
 * costs an index range of `limit` entries wherever it is on the board.
 */
export async function leaderboardPage(
  db: Kysely<Database>,
  options: BoardFilter & { limit: number; after?: PageEnd | undefined },
): Promise<PositionedEntry[]> {
  const { limit, after } = options;
  let query = entries(db, options);
  if (after) query = query.where(compare(rankKey('e'), '>', positionKey(after.position)));
  const rows = await inRankOrder(query).limit(limit).execute();
  const start = after?.rank ?? 0;
  return rows.map((row, index) => positioned(row, start + index + 1));
}

/**
 * Up to `count` entries next to `entry` in rank order: `above` nearest first
 * is reversed so both lists read top to bottom, with ranks derived from the
 * entry's rank. Run it in the same snapshot as the findRankedEntry that gave `entry`.
 */
export async function neighbours(
  db: Kysely<Database>,
  entry: PositionedEntry,
  options: BoardFilter & { count: number },
): Promise<{ above: PositionedEntry[]; below: PositionedEntry[] }> {
  const { count } = options;
  if (count === 0) return { above: [], below: [] };
  const side = (op: '<' | '>') => {
    const query = entries(db, options).where(
      compare(rankKey('e'), op, positionKey(entry.position)),
    );
    // Nearest first on both sides: walking up the board is the rank order reversed.
    return inRankOrder(query, op === '<' ? 'desc' : 'asc')
      .limit(count)
      .execute();
  };
  const above = await side('<');
  const below = await side('>');
  return {
    above: above.map((row, index) => positioned(row, entry.rank - index - 1)).reverse(),
    below: below.map((row, index) => positioned(row, entry.rank + index + 1)),
  };
}

/** The boards the user has an entry on: all-time first, then seasons, newest first. */
export async function findUserBoards(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('leaderboardEntries')
    .select('board')
    .where('userId', '=', userId)
    .orderBy(sql`board = ${ALL_TIME_BOARD}`, 'desc')
    .orderBy('board', 'desc')
    .execute();
  return rows.map((row) => row.board);
}

/**
 * The current team keys of users on the all-time board (users without an
 * entry, or without a team, are left out): which team boards their writes
 * may have moved.
 */
export async function teamKeysOf(db: Kysely<Database>, userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('leaderboardEntries')
    .select('teamKey')
    .distinct()
    .where('board', '=', ALL_TIME_BOARD)
    .where(sql<SqlBool>`user_id = any(${userIds}::uuid[])`)
    .where('teamKey', 'is not', null)
    .execute();
  return rows.map((row) => row.teamKey!);
}

/**
 * The tops of many team boards of the all-time board in one statement: for
 * each team key, its first `limit` fans in rank order, ranked from 1. Each
 * board is an index range of its own (leaderboard_entries_team_rank_idx), so
 * the statement costs what that many leaderboardPage calls would, in one
 * round trip and one transaction.
 */
export async function teamBoardTops(
  db: Kysely<Database>,
  boards: { teamKey: string; limit: number }[],
): Promise<Map<string, RankedEntry[]>> {
  const tops = new Map<string, RankedEntry[]>(boards.map((b) => [b.teamKey, []]));
  if (boards.length === 0) return tops;
  const { rows } = await sql<RankedEntry & { teamKey: string }>`
    SELECT k.team_key AS "teamKey", t.user_id AS "userId", t.handle, t.name,
           t.profile_url AS "profileUrl", t.points
    FROM unnest(${boards.map((b) => b.teamKey)}::text[], ${boards.map((b) => b.limit)}::int[])
      AS k(team_key, lim)
    CROSS JOIN LATERAL (
      SELECT e.user_id, p.handle, p.name, p.profile_url, e.points, e.reached_seq
      FROM leaderboard_entries e
      LEFT JOIN profiles p ON p.user_id = e.user_id
      WHERE e.board = ${ALL_TIME_BOARD} AND e.team_key = k.team_key AND NOT e.hidden
      ORDER BY -e.points, e.reached_seq, e.user_id
      LIMIT k.lim
    ) t
    ORDER BY k.team_key, -t.points, t.reached_seq, t.user_id`.execute(db);
  for (const { teamKey, ...entry } of rows) {
    const top = tops.get(teamKey)!;
    top.push({ ...entry, rank: top.length + 1 });
  }
  return tops;
}
