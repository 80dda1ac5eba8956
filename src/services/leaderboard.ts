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
import { toPage, type Page } from './page.js';
import { readSnapshot } from './snapshot.js';

export interface LeaderboardQuery {
  limit: number;
  /** Where the previous page ended (a decoded cursor). */
  after?: PageEnd | undefined;
  /** Only fans of this team (already normalised), ranked among themselves. */
  team?: string | undefined;
}

/** GET /api/leaderboard: one keyset page in rank order. */
export async function getLeaderboard(
  db: Kysely<Database>,
  query: LeaderboardQuery,
): Promise<Page<PositionedEntry>> {
  // One extra row says whether another page follows.
  const rows = await leaderboardPage(db, { ...query, limit: query.limit + 1 });
  return toPage(rows, query.limit, (last) => encodeLeaderboardCursor(last));
}

export interface AroundMe {
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
  query: { radius: number; team?: string | undefined },
): Promise<AroundMe> {
  return readSnapshot(db, async (trx) => {
    const entry = await findRankedEntry(trx, userId, { team: query.team });
    if (!entry) {
      throw new AppError(
        'NOT_FOUND',
        query.team === undefined
          ? 'You are not on the leaderboard yet: onboard first (POST /api/user/profile)'
          : `You are not on the "${query.team}" leaderboard: it ranks onboarded fans whose ` +
              'favoriteTeam is that team',
      );
    }
    const { above, below } = await neighbours(trx, entry, {
      count: query.radius,
      team: query.team,
    });
    return { entry, above, below };
  });
}
