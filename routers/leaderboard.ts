import type { SeasonPeriod } from '../src/domain/seasons.js';
import {
  getLeaderboard,
  getLeaderboardAroundMe,
  listClosedSeasons,
  type LeaderboardQuery,
} from '../src/services/leaderboard.js';
import type { AppDeps } from '../src/trpc/context.js';
import { protectedProcedure, router } from '../src/trpc/init.js';
import { ok, toLeaderboardAroundMe, toLeaderboardPage, toLeaderboardSeasons } from './dto.js';
import { LOOKUP_ERRORS, QUERY_ERRORS } from './operation-errors.js';
import {
  LeaderboardAroundMeInput,
  LeaderboardAroundMeSchema,
  LeaderboardInput,
  LeaderboardPageSchema,
  LeaderboardSeasonsInput,
  LeaderboardSeasonsSchema,
} from './leaderboard-schemas.js';
import { success } from './schemas.js';

/**
 * A board's page as GET /api/leaderboard reads it (a shared read, the
 * first-page cache, the archive cut on the primary): also what
 * adminLeaderboard reads, so the console ranks as the fans' API does.
 */
export function readLeaderboard(deps: AppDeps, query: LeaderboardQuery) {
  return deps.reads.shared((db) =>
    getLeaderboard(db, query, deps.clock(), {
      archiveTimeoutMs: deps.config.seasonArchiveTimeoutMs,
      primary: deps.db,
      firstPages: deps.firstPages,
    }),
  );
}

/** The closed seasons as GET /api/leaderboard/seasons lists them (and adminLeaderboardSeasons). */
export function readClosedSeasons(
  deps: AppDeps,
  query: { period: SeasonPeriod; limit: number; after?: string | undefined },
) {
  return deps.reads.shared((db) => listClosedSeasons(db, query, deps.clock()));
}

const RANK_ORDER =
  'Rank order: more points first, then whoever reached that score first, then user id.';

export const leaderboardRouter = router({
  leaderboard: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/leaderboard',
        summary: 'Leaderboard, one page at a time',
        description:
          `${RANK_ORDER} Pages follow nextCursor (keyset pagination: no entry is skipped or ` +
          'repeated under ties); a cursor continues only the board it came from (same ' +
          '`period`, season and `team`), elsewhere it is a 400, also for a week’s or month’s ' +
          'walk once that season has ended. With `team`, only fans of that team, ranked among themselves. With ' +
          '`period=week` or `period=month`, the current ISO week’s (from Monday 00:00 UTC) or ' +
          'calendar month’s (UTC) board: points earned in it; `startsAt` and `nextResetAt` ' +
          'say when it began and when it starts afresh. With `season` (a closed season of ' +
          '`period`), that season’s final standings, frozen when it closed, with today’s handle ' +
          'and name (null for deleted accounts); 404 while the season has not closed, and for a ' +
          'season nobody earned points in.',
        tags: ['leaderboard'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(LeaderboardInput)
    .output(success(LeaderboardPageSchema))
    .query(async ({ ctx, input }) =>
      ok(
        toLeaderboardPage(
          await readLeaderboard(ctx.deps, {
            period: input.period,
            limit: input.limit,
            after: input.cursor,
            team: input.team,
            season: input.season,
          }),
        ),
      ),
    ),

  leaderboardSeasons: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/leaderboard/seasons',
        summary: 'Closed seasons with final standings',
        description:
          'The closed ISO weeks or UTC months that have entries, newest first, one page at a ' +
          'time: read each one’s final standings with GET /api/leaderboard?period=…&season=….',
        tags: ['leaderboard'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    .input(LeaderboardSeasonsInput)
    .output(success(LeaderboardSeasonsSchema))
    .query(async ({ ctx, input }) =>
      ok(
        toLeaderboardSeasons(
          input.period,
          await readClosedSeasons(ctx.deps, {
            period: input.period,
            limit: input.limit,
            after: input.cursor,
          }),
        ),
      ),
    ),

  leaderboardAroundMe: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/leaderboard/me',
        summary: 'The signed-in user’s rank and neighbours',
        description:
          `${RANK_ORDER} The caller's entry with up to \`radius\` entries above and below it ` +
          '(fewer at the top and bottom). With `team`, on that team’s fan board; with `period`, ' +
          'on the current week’s or month’s board. 404 when the caller has no entry there (not ' +
          'onboarded, not a fan of `team`, or no points earned in the season).',
        tags: ['leaderboard'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(LeaderboardAroundMeInput)
    .output(success(LeaderboardAroundMeSchema))
    .query(async ({ ctx, input }) => {
      // The caller's own entry: read-your-writes, like the caller's other reads.
      const around = await ctx.deps.reads.own(ctx.userId, (db) =>
        getLeaderboardAroundMe(db, ctx.userId, input, ctx.deps.clock()),
      );
      return ok(toLeaderboardAroundMe(around));
    }),
});
