import type { Kysely } from 'kysely';
import {
  findRankedEntry,
  leaderboardPage,
  neighbours,
  type PositionedEntry,
} from '../../db/queries/leaderboard.js';
import {
  cutSeasonArchive,
  hasArchive,
  hasEntries,
  seasonBoardsBefore,
  standingsPage,
  type StandingRow,
} from '../../db/queries/season-archives.js';
import type { Database } from '../../db/schema.js';
import {
  encodeLeaderboardCursor,
  leaderboardCursorBoard,
  type LeaderboardCursor,
} from '../domain/cursor.js';
import { AppError, validationError } from '../app-error.js';
import {
  currentBoard,
  isClosed,
  parseSeason,
  SEASON_ARCHIVE_TIMEOUT_MS,
  seasonAt,
  type Period,
  type Season,
  type SeasonPeriod,
} from '../domain/seasons.js';
import { FIRST_PAGE_ROWS, type FirstPageCache } from './first-page.js';
import { toPage, type Page } from './page.js';
import { readSnapshot } from './snapshot.js';

export interface LeaderboardQuery {
  /** Which board: all-time (the default), or the current ISO week's or UTC month's. */
  period?: Period | undefined;
  limit: number;
  /** Where the previous page ended (a decoded cursor), on the board it names. */
  after?: LeaderboardCursor | undefined;
  /** Only fans of this team (already normalised), ranked among themselves. */
  team?: string | undefined;
  /** A closed season's id (`2026-W47`): its final standings (docs/SEASONS.md, Archives). */
  season?: string | undefined;
}

/** The board a read showed: the period and, for a season, which one. */
export interface BoardView {
  period: Period;
  season: Season | undefined;
}

export interface LeaderboardReadOptions {
  /** Bounds the cut of a closed season's standings (SEASON_ARCHIVE_TIMEOUT_MS). */
  archiveTimeoutMs?: number;
  /** Where a missing archive is cut, when `db` is a replica (a cut writes); `db` by default. */
  primary?: Kysely<Database>;
  /** The instance's shared first pages (src/services/first-page.ts); none: every page is read. */
  firstPages?: FirstPageCache;
}

/** GET /api/leaderboard: one keyset page in rank order. */
export async function getLeaderboard(
  db: Kysely<Database>,
  query: LeaderboardQuery,
  now: Date = new Date(),
  options: LeaderboardReadOptions = {},
): Promise<Page<PositionedEntry | ArchivedEntry> & BoardView> {
  const period = query.period ?? 'all';
  const { season: seasonId } = query;
  if (seasonId !== undefined) {
    const archived = { ...query, period, season: seasonId };
    return getArchivedSeason(db, archived, now, {
      timeoutMs: options.archiveTimeoutMs ?? SEASON_ARCHIVE_TIMEOUT_MS,
      primary: options.primary ?? db,
    });
  }
  const { board, season } = currentBoard(period, now);
  const cursorBoard = leaderboardCursorBoard(board, { team: query.team });
  checkCursorBoard(query.after, cursorBoard);
  // One extra row says whether another page follows.
  const rows =
    query.after === undefined && options.firstPages
      ? (
          await options.firstPages.rows(board, query.team, () =>
            leaderboardPage(db, { board, team: query.team, limit: FIRST_PAGE_ROWS }),
          )
        ).slice(0, query.limit + 1)
      : await leaderboardPage(db, {
          board,
          team: query.team,
          after: query.after,
          limit: query.limit + 1,
        });
  const page = toPage(rows, query.limit, (last) =>
    encodeLeaderboardCursor({ board: cursorBoard, position: last.position, rank: last.rank }),
  );
  return { ...page, period, season };
}

/**
 * A cursor continues the walk of the board it came from (docs/SEASONS.md):
 * another period, season, team or an archive is a 400 naming `cursor`, as
 * is a week's or month's walk once that season has ended (its ranks were
 * counted on the old board).
 */
function checkCursorBoard(after: LeaderboardCursor | undefined, board: string): void {
  if (after === undefined || after.board === board) return;
  throw validation(
    'cursor',
    'Not a cursor of this board: it came from another period, season, team or an archive ' +
      '(a week’s or month’s walk ends when the season does); start again without cursor',
  );
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

/** A final standing: the user is null once the account is deleted. */
export type ArchivedEntry = StandingRow;

/**
 * GET /api/leaderboard?period=week&season=2026-W47: a closed season's final
 * standings, cut by the first read after it closed (db/queries/season-archives.ts),
 * under its own statement timeout. Standings `db` already holds are read
 * there; ones that had to be cut are read where they were cut (`primary`),
 * as a replica may not hold them yet.
 */
async function getArchivedSeason(
  db: Kysely<Database>,
  query: LeaderboardQuery & { period: Period; season: string },
  now: Date,
  { timeoutMs, primary }: { timeoutMs: number; primary: Kysely<Database> },
): Promise<Page<ArchivedEntry> & BoardView> {
  const { period } = query;
  if (period === 'all') {
    throw validation('season', 'season needs period=week or period=month');
  }
  if (query.team !== undefined) {
    throw validation('team', 'team cannot be combined with season: archives rank the whole board');
  }
  const season = parseSeason(period, query.season);
  if (!season) {
    throw validation(
      'season',
      period === 'week' ? 'Not an ISO week such as 2026-W47' : 'Not a month such as 2026-11',
    );
  }
  if (!isClosed(season, now)) {
    throw new AppError(
      'NOT_FOUND',
      `The ${period} ${season.id} has not closed yet (it ends ${season.endsAt.toISOString()}): ` +
        'only closed seasons have final standings',
    );
  }
  const cursorBoard = leaderboardCursorBoard(season.board, { archive: true });
  checkCursorBoard(query.after, cursorBoard);
  let source = db;
  if (!(await hasArchive(db, season.board))) {
    await ensureArchive(primary, season, timeoutMs);
    source = primary;
  }
  const rows = await standingsPage(source, {
    board: season.board,
    afterRank: query.after?.rank ?? 0,
    limit: query.limit + 1,
  });
  const page = toPage(rows, query.limit, (last) =>
    encodeLeaderboardCursor({
      board: cursorBoard,
      position: { points: last.points, seq: '0', userId: NO_USER },
      rank: last.rank,
    }),
  );
  return { ...page, period, season };
}

const NO_USER = '00000000-0000-0000-0000-000000000000';

/** A first read looks again at a cut running elsewhere after 50 ms, doubling up to 1 s. */
const CUT_POLL_MS = { first: 50, max: 1_000 };

/**
 * Makes sure a closed season's final standings exist, cutting them if no one
 * has (db/queries/season-archives.ts). A season nobody earned points in has
 * none: 404, and nothing is stored. While another read, here or on another
 * instance, is cutting them, this one waits without holding a pool
 * connection: it sleeps and looks again, and takes the cut over if that one
 * failed. It waits at most `timeoutMs` (the cut's own limit), then answers
 * 503 with Retry-After.
 */
async function ensureArchive(db: Kysely<Database>, season: Season, timeoutMs: number) {
  if (await hasArchive(db, season.board)) return;
  if (!(await hasEntries(db, season.board))) throw noStandings(season);
  const deadline = Date.now() + timeoutMs;
  for (let wait = CUT_POLL_MS.first; ; wait = Math.min(wait * 2, CUT_POLL_MS.max)) {
    const outcome = await cutSeasonArchive(db, season.board, season.endsAt, { timeoutMs });
    if (outcome === 'archived') return;
    if (outcome === 'empty') throw noStandings(season);
    if (Date.now() + wait > deadline) {
      throw new AppError(
        'UNAVAILABLE',
        `The final standings of the ${season.period} ${season.id} are still being cut; ` +
          'retry shortly',
        { retryAfterSeconds: 5 },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function noStandings(season: Season): AppError {
  return new AppError(
    'NOT_FOUND',
    `No standings for the ${season.period} ${season.id}: nobody earned points in the ` +
      `${season.period} (or it was before the service existed)`,
  );
}

const validation = (path: string, message: string) => validationError([{ path, message }]);

/** GET /api/leaderboard/seasons: closed seasons that have standings, newest first. */
export async function listClosedSeasons(
  db: Kysely<Database>,
  query: { period: SeasonPeriod; limit: number; after?: string | undefined },
  now: Date = new Date(),
): Promise<Page<Season>> {
  let before = seasonAt(query.period, now).board;
  if (query.after !== undefined) {
    const after = parseSeason(query.period, query.after);
    if (!after) throw validation('cursor', 'Not a cursor this list gave out: pass nextCursor back');
    if (after.board < before) before = after.board;
  }
  const boards = await seasonBoardsBefore(db, {
    period: query.period,
    before,
    limit: query.limit + 1,
  });
  const seasons = boards.flatMap((board) => {
    const season = parseSeason(query.period, board.slice(board.indexOf(':') + 1));
    return season ? [season] : [];
  });
  return toPage(seasons, query.limit, (last) => last.id);
}
