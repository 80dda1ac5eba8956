import { z } from 'zod';
import { seasonAt } from '../src/domain/seasons.js';
import { teamFilterSchema } from '../src/domain/profile.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok, toLeaderboardPage, toLeaderboardSeasons } from './dto.js';
import { readClosedSeasons, readLeaderboard } from './leaderboard.js';
import { boardUpdates, LeaderboardUpdates } from './live.js';
import { LeaderboardEventsInput } from './live-schemas.js';
import { LOOKUP_ERRORS, QUERY_ERRORS } from './operation-errors.js';
import {
  ClosedSeasonSchema,
  LeaderboardPageSchema,
  LeaderboardSeasonsInput,
  LeaderboardSeasonsSchema,
} from './leaderboard-schemas.js';
import { success } from './schemas.js';

/**
 * The boards as the fans see them, for service tokens with the `admin` scope (the console's
 * Leaderboards). The fans' procedures act for a signed-in fan and refuse service tokens; these
 * read the same boards through the same reads (routers/leaderboard.ts, routers/live.ts).
 */

const BOARDS = ['global', 'team', 'week', 'month'] as const;
const PERIOD_OF = { global: 'all', team: 'all', week: 'week', month: 'month' } as const;

const AdminLeaderboardSchema = LeaderboardPageSchema.omit({ nextCursor: true })
  .extend({
    board: z.enum(BOARDS),
    team: z.string().nullable().meta({ description: 'The team of a team’s board, as asked' }),
  })
  .meta({ id: 'AdminLeaderboard' });

const AdminLeaderboardSeasonsSchema = LeaderboardSeasonsSchema.extend({
  open: ClosedSeasonSchema.meta({
    description: 'The season in progress (its board: GET /api/admin/leaderboard without season)',
  }),
}).meta({ id: 'AdminLeaderboardSeasons' });

/** An admin client's streams are counted apart from any fan's (user ids are UUIDs). */
const streamOwner = (clientId: string) => `admin:${clientId}`;

export const adminLeaderboardRouter = router({
  adminLeaderboard: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/leaderboard',
        summary: 'A board’s top',
        description:
          'The top `limit` entries (up to 100) of the all-time board (`global`), a team’s fans ' +
          '(`team`, with `team`), or the current ISO week’s or UTC month’s (`week`, `month`), ' +
          'ranked as GET /api/leaderboard ranks them. With `season` (a closed week or month, ' +
          'from GET /api/admin/leaderboard/seasons), its final standings; 404 while the ' +
          'season has not closed, and for a season nobody earned points in. The live ' +
          'all-time and team boards: the adminLeaderboardEvents subscription (asyncapi.json).',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          board: z
            .enum(BOARDS)
            .default('global')
            .meta({ description: 'global (the default), team, week or month' }),
          team: teamFilterSchema
            .meta({ description: 'The team whose fans’ board to read: with board=team only' })
            .optional(),
          season: z
            .string()
            .max(16)
            .meta({
              description:
                'A closed season of board week (2026-W47) or month (2026-11): its final standings',
            })
            .optional(),
          limit: z
            .int()
            .min(1)
            .max(100)
            .default(100)
            .meta({ description: 'Entries from the top, 1–100 (default 100)' }),
        })
        .refine((input) => (input.board === 'team') === (input.team !== undefined), {
          path: ['team'],
          message: 'team goes with board=team, and board=team needs it',
        })
        .refine(
          (input) =>
            input.season === undefined || input.board === 'week' || input.board === 'month',
          { path: ['season'], message: 'Only week and month boards have seasons' },
        )
        .meta({ id: 'AdminLeaderboardInput' }),
    )
    .output(success(AdminLeaderboardSchema))
    .query(async ({ ctx, input }) => {
      const page = toLeaderboardPage(
        await readLeaderboard(ctx.deps, {
          period: PERIOD_OF[input.board],
          limit: input.limit,
          team: input.team,
          season: input.season,
        }),
      );
      return ok({
        board: input.board,
        team: input.team ?? null,
        period: page.period,
        season: page.season,
        startsAt: page.startsAt,
        nextResetAt: page.nextResetAt,
        entries: page.entries,
      });
    }),

  adminLeaderboardSeasons: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/leaderboard/seasons',
        summary: 'A period’s seasons, open and closed',
        description:
          'The week’s or month’s season in progress (`open`), and the closed ones that have ' +
          'standings, newest first, one page at a time (as GET /api/leaderboard/seasons lists ' +
          'them): read each with GET /api/admin/leaderboard?board=…&season=….',
        tags: ['admin'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    // The fans' seasons input, as the fans' list takes it.
    .input(LeaderboardSeasonsInput)
    .output(success(AdminLeaderboardSeasonsSchema))
    .query(async ({ ctx, input }) => {
      const open = seasonAt(input.period, ctx.deps.clock());
      const closed = await readClosedSeasons(ctx.deps, {
        period: input.period,
        limit: input.limit,
        after: input.cursor,
      });
      return ok({
        ...toLeaderboardSeasons(input.period, closed),
        open: {
          season: open.id,
          startsAt: open.startsAt.toISOString(),
          endsAt: open.endsAt.toISOString(),
        },
      });
    }),

  adminLeaderboardEvents: serviceProcedure('admin')
    .input(LeaderboardEventsInput)
    .output(LeaderboardUpdates)
    .subscription(async ({ ctx, input, signal, path }) =>
      boardUpdates(ctx, { owner: streamOwner(ctx.principal.clientId), input, signal, path }),
    ),
});
