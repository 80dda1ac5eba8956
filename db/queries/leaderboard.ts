import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../schema.js';

/**
 * The leaderboard's one rank order: more points first, then whoever reached
 * that score first, then user id. It is a strict total order, so ranks are
 * deterministic and keyset pages never skip or repeat an entry under ties.
 *
 * It is written once, as the ascending row value `(-points, reached_at,
 * user_id)` — exactly the columns of leaderboard_entries_rank_idx and
 * leaderboard_entries_team_rank_idx — so every comparison and ORDER BY below
 * is an index range. The rank of an entry is 1 + the number of entries whose
 * key is smaller.
 */
function rankColumns(
  alias: string,
): [Expression<unknown>, Expression<unknown>, Expression<unknown>] {
  return [
    sql`-${sql.ref(`${alias}.points`)}`,
    sql.ref(`${alias}.reachedAt`),
    sql.ref(`${alias}.userId`),
  ];
}

/** The rank key as one row value, for comparisons. */
function rankKey(alias: string): Expression<unknown> {
  const [points, reachedAt, userId] = rankColumns(alias);
  return sql`(${points}, ${reachedAt}, ${userId})`;
}

/** ORDER BY the rank key of the entries aliased `e`: 'asc' is top of the board first. */
function inRankOrder<
  Q extends { orderBy(expression: Expression<unknown>, direction: 'asc' | 'desc'): Q },
>(query: Q, direction: 'asc' | 'desc' = 'asc'): Q {
  return rankColumns('e').reduce((ordered, column) => ordered.orderBy(column, direction), query);
}

/** A position in the rank order, exact to the microsecond (a JS Date would lose those). */
export interface RankPosition {
  points: number;
  /** reached_at as ISO-8601 UTC with microseconds, e.g. 2026-11-23T15:00:00.123456Z. */
  reachedAt: string;
  userId: string;
}

/** Where a page ended: the last entry's position and the rank it was served with. */
export interface PageEnd {
  position: RankPosition;
  rank: number;
}

function positionKey(position: RankPosition): Expression<unknown> {
  return sql`(${-position.points}::integer, ${position.reachedAt}::timestamptz, ${position.userId}::uuid)`;
}

function compare(
  left: Expression<unknown>,
  op: '<' | '>',
  right: Expression<unknown>,
): Expression<SqlBool> {
  return sql<SqlBool>`${left} ${sql.raw(op)} ${right}`;
}

const reachedAtText = (alias: string) =>
  sql<string>`to_char(${sql.ref(`${alias}.reachedAt`)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The case fold of a team name; the same lower() the team_key column was filled with. */
const teamKey = (team: string) => sql<string>`lower(${team})`;

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

/**
 * Gives the user a leaderboard entry (0 points) if they have none yet, and
 * keeps its team key equal to lower(favoriteTeam). Call it at onboarding and
 * whenever an onboarded user's favoriteTeam changes.
 */
export async function ensureLeaderboardEntry(
  trx: Kysely<Database>,
  userId: string,
  favoriteTeam: string | null,
): Promise<void> {
  const key = favoriteTeam === null ? null : teamKey(favoriteTeam);
  await trx
    .insertInto('leaderboardEntries')
    .values({
      userId,
      points: 0,
      reachedAt: sql<Date>`now()`,
      updatedAt: sql<Date>`now()`,
      teamKey: key,
    })
    .onConflict((oc) =>
      oc
        .column('userId')
        .doUpdateSet({ teamKey: (eb) => eb.ref('excluded.teamKey') })
        .where((eb) =>
          eb('leaderboardEntries.teamKey', 'is distinct from', eb.ref('excluded.teamKey')),
        ),
    )
    .execute();
}

function entries(db: Kysely<Database>) {
  return db
    .selectFrom('leaderboardEntries as e')
    .leftJoin('profiles as p', 'p.userId', 'e.userId')
    .select([
      'e.userId',
      'p.handle',
      'p.name',
      'p.profileUrl',
      'e.points',
      reachedAtText('e').as('reachedAtKey'),
    ]);
}

type EntryRow = Awaited<ReturnType<ReturnType<typeof entries>['execute']>>[number];

function positioned(row: EntryRow, rank: number): PositionedEntry {
  const { reachedAtKey, ...entry } = row;
  return {
    ...entry,
    rank,
    position: { points: row.points, reachedAt: reachedAtKey, userId: row.userId },
  };
}

/**
 * The user's entry with its 1-based rank, on the whole board or, with `team`,
 * among the fans of that team (undefined when the user has no entry or is not
 * a fan of `team`).
 */
export async function findRankedEntry(
  db: Kysely<Database>,
  userId: string,
  options: { team?: string | undefined } = {},
): Promise<PositionedEntry | undefined> {
  const { team } = options;
  let query = entries(db)
    .select((eb) => {
      let ahead = eb
        .selectFrom('leaderboardEntries as a')
        .select(sql<string>`count(*)`.as('ahead'))
        .where(compare(rankKey('a'), '<', rankKey('e')));
      if (team !== undefined) ahead = ahead.where('a.teamKey', '=', eb.ref('e.teamKey'));
      return ahead.as('ahead');
    })
    .where('e.userId', '=', userId);
  if (team !== undefined) query = query.where('e.teamKey', '=', teamKey(team));
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const { ahead, ...entry } = row;
  return positioned(entry, Number(ahead) + 1);
}

/**
 * Up to `limit` entries in rank order after `after` (from the top without
 * it). Ranks continue from the rank the previous page ended with, so a page
 * costs an index range of `limit` entries wherever it is on the board (a
 * count of the entries ahead would read O(rank) of them).
 */
export async function leaderboardPage(
  db: Kysely<Database>,
  options: { limit: number; after?: PageEnd | undefined; team?: string | undefined },
): Promise<PositionedEntry[]> {
  const { limit, after, team } = options;
  let query = entries(db);
  if (after) query = query.where(compare(rankKey('e'), '>', positionKey(after.position)));
  if (team !== undefined) query = query.where('e.teamKey', '=', teamKey(team));
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
  options: { count: number; team?: string | undefined },
): Promise<{ above: PositionedEntry[]; below: PositionedEntry[] }> {
  const { count, team } = options;
  if (count === 0) return { above: [], below: [] };
  const side = (op: '<' | '>') => {
    let query = entries(db).where(compare(rankKey('e'), op, positionKey(entry.position)));
    if (team !== undefined) query = query.where('e.teamKey', '=', teamKey(team));
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
