import type { Kysely } from 'kysely';
import {
  findRankedEntry,
  leaderboardPage,
  neighbours,
  type PageEnd,
  type PositionedEntry,
} from '../../db/queries/leaderboard.js';
import type { Database } from '../../db/schema.js';
import { encodeLeaderboardCursor } from '../domain/cursor.js';
import { AppError } from '../app-error.js';
import { currentBoard, type Period, type Season } from '../domain/seasons.js';
import { toPage, type Page } from './page.js';
import { readSnapshot } from './snapshot.js';

export interface LeaderboardQuery {
  /** Which board: all-time (the default), or the current ISO week's or UTC month's. */
  period?: Period | undefined;
  limit: number;
  /** Where the previous page ended (a decoded cursor). */
  after?: PageEnd | undefined;
  /** Only fans of this team (already normalised), ranked among themselves. */
  team?: string | undefined;
}

/** The board a read showed: the period and, for a season, which one. */
export interface BoardView {
  period: Period;
  season: Season | undefined;
}

/** GET /api/leaderboard: one keyset page in rank order. */
export async function getLeaderboard(
  db: Kysely<Database>,
  query: LeaderboardQuery,
  now: Date = new Date(),
): Promise<Page<PositionedEntry> & BoardView> {
  const period = query.period ?? 'all';
  const { board, season } = currentBoard(period, now);
  // One extra row says whether another page follows.
  const rows = await leaderboardPage(db, {
    board,
    team: query.team,
    after: query.after,
    limit: query.limit + 1,
  });
  const page = toPage(rows, query.limit, (last) => encodeLeaderboardCursor(last));
  return { ...page, period, season };
}

export interface AroundMe extends BoardView {
  entry: PositionedEntry;
  above: PositionedEntry[];
  below: PositionedEntry[];
}

/**
 * GET /api/leaderboard/me: the caller's entry and up to `radius` neighbours
 * on each side. One read-only snapshot, so the neighbours' ranks agree with
 * the caller's.
 */
export function getLeaderboardAroundMe(
  db: Kysely<Database>,
  userId: string,
  query: { period?: Period | undefined; radius: number; team?: string | undefined },
  now: Date = new Date(),
): Promise<AroundMe> {
  const period = query.period ?? 'all';
  const { board, season } = currentBoard(period, now);
  return readSnapshot(db, async (trx) => {
    const entry = await findRankedEntry(trx, userId, { board, team: query.team });
    if (!entry) {
      throw new AppError(
        'NOT_FOUND',
        season !== undefined
          ? `You are not on the ${season.period} ${season.id} leaderboard: it ranks who earned ` +
              'points in it'
          : query.team === undefined
            ? 'You are not on the leaderboard yet: onboard first (POST /api/user/profile)'
            : `You are not on the "${query.team}" leaderboard: it ranks onboarded fans whose ` +
              'favoriteTeam is that team',
      );
    }
    const { above, below } = await neighbours(trx, entry, {
      board,
      count: query.radius,
      team: query.team,
    });
    return { entry, above, below, period, season };
  });
}
