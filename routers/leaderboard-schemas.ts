import { z } from 'zod';
import { decodeLeaderboardCursor } from '../src/domain/cursor.js';
import { teamFilterSchema } from '../src/domain/profile.js';
import { cursorParam, nextCursor, pageLimit, points, text, time } from './schemas.js';

/** Schemas of the leaderboards: board entries, board queries and pages, closed seasons. */
export const LeaderboardEntrySchema = z
  .object({
    userId: z.uuid(),
    handle: text,
    name: text,
    profileUrl: text,
    points,
    rank: z.number().int().min(1).meta({
      description:
        '1-based: more points first, then whoever reached that score first, then user id',
    }),
  })
  .meta({ id: 'LeaderboardEntry' });

const periodParam = z
  .enum(['all', 'week', 'month'])
  .default('all')
  .meta({
    description:
      'Which board: all (all-time, the default), week (the current ISO week, from Monday ' +
      '00:00 UTC) or month (the current calendar month, UTC): points earned in it',
  });

export const LeaderboardInput = z
  .strictObject({
    period: periodParam,
    limit: pageLimit,
    cursor: cursorParam(decodeLeaderboardCursor).optional(),
    team: teamFilterSchema.optional(),
    season: z
      .string()
      .max(16)
      .meta({
        description:
          'A closed season of `period` (2026-W47 for week, 2026-11 for month): its final standings',
      })
      .optional(),
  })
  .meta({ id: 'LeaderboardInput' });

export const LeaderboardSeasonsInput = z
  .strictObject({
    period: z.enum(['week', 'month']).meta({ description: 'ISO weeks or UTC calendar months' }),
    limit: pageLimit,
    cursor: z
      .string()
      .max(16)
      .meta({ description: 'nextCursor of the previous page, unchanged; omit for the first page' })
      .optional(),
  })
  .meta({ id: 'LeaderboardSeasonsInput' });

export const LeaderboardAroundMeInput = z
  .strictObject({
    period: periodParam,
    radius: z
      .number()
      .int()
      .min(0)
      .max(25)
      .default(5)
      .meta({ description: 'Neighbours to return on each side, 0–25 (default 5)' }),
    team: teamFilterSchema.optional(),
  })
  .meta({ id: 'LeaderboardAroundMeInput' });

/** Which board a leaderboard read shows. */
const boardFields = {
  period: z.enum(['all', 'week', 'month']),
  season: z
    .string()
    .nullable()
    .meta({ description: 'The season shown (2026-W47, 2026-11); null for the all-time board' }),
  startsAt: time.nullable().meta({ description: 'When the season began; null for all-time' }),
  nextResetAt: time
    .nullable()
    .meta({ description: 'When this period starts afresh (the next season); null for all-time' }),
};

/** A board page's entry: in a closed season's standings, a deleted account has no user id. */
export const BoardPageEntrySchema = LeaderboardEntrySchema.extend({
  userId: z
    .uuid()
    .nullable()
    .meta({ description: 'null only in a closed season’s standings, for a deleted account' }),
}).meta({ id: 'BoardPageEntry' });

export const LeaderboardPageSchema = z
  .object({
    ...boardFields,
    entries: z.array(BoardPageEntrySchema).meta({ description: 'In rank order' }),
    nextCursor,
  })
  .meta({ id: 'LeaderboardPage' });

export const LeaderboardAroundMeSchema = z
  .object({
    ...boardFields,
    entry: LeaderboardEntrySchema,
    above: z
      .array(LeaderboardEntrySchema)
      .meta({ description: 'Up to `radius` entries ranked just above, in rank order' }),
    below: z
      .array(LeaderboardEntrySchema)
      .meta({ description: 'Up to `radius` entries ranked just below, in rank order' }),
  })
  .meta({ id: 'LeaderboardAroundMe' });

export const ClosedSeasonSchema = z
  .object({
    season: z.string().meta({ description: '2026-W47 or 2026-11: pass as `season`' }),
    startsAt: time,
    endsAt: time.meta({ description: 'When it closed (exclusive end)' }),
  })
  .meta({ id: 'ClosedSeason' });

export const LeaderboardSeasonsSchema = z
  .object({
    period: z.enum(['week', 'month']),
    entries: z.array(ClosedSeasonSchema).meta({ description: 'Newest first' }),
    nextCursor,
  })
  .meta({ id: 'LeaderboardSeasons' });
