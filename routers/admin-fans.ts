import { z } from 'zod';
import { PROFILE_FIELDS, type ProfileField } from '../db/profile-fields.js';
import { seasonOfBoard } from '../src/domain/seasons.js';
import { textProblem } from '../src/domain/text.js';
import {
  fanEvents,
  fanLedger,
  fanStory,
  searchFans,
  type FanBoard,
  type FanEvent,
  type FanMatch,
  type FanSummary,
} from '../src/services/admin-fans.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok, toLedgerEntry, toQuestProgress, toStreak } from './dto.js';
import { LOOKUP_ERRORS, QUERY_ERRORS } from './operation-errors.js';
import { CompletedQuestSchema } from './event-schemas.js';
import { LedgerEntrySchema, QuestProgressSchema, StreakSchema } from './points-schemas.js';
import { success } from './schemas.js';

/**
 * Finding a fan and reading their whole story, for service tokens with the
 * `admin` scope (docs/CATALOG.md, "Finding a fan"). Reads only: what an
 * operator does about a fan goes through the audited operations of
 * routers/admin.ts.
 */

const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
const text = z.string().nullable();
const userId = z
  .uuid()
  .meta({ description: 'The fan’s user id (as webhooks and exports name it)' });
const limit = (fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(fallback)
    .meta({ description: `Entries per page, 1–100 (default ${fallback})` });
const before = z
  .string()
  .regex(/^[1-9][0-9]{0,17}$/)
  .meta({ description: 'Entries older than this one: the previous page’s nextCursor' });
/** Looked up as typed: well-formed text without control, bidirectional or invisible characters. */
const searchText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .superRefine((value, ctx) => {
      const problem = value.isWellFormed() ? textProblem(value) : 'Must be valid Unicode text';
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
const nextCursor = z.string().nullable().meta({ description: 'Pass as `before` for more' });

const FanSummarySchema = z
  .object({
    id: z.uuid(),
    issuer: z.string().meta({ description: 'The identity provider the fan signs in with' }),
    subject: z.string().meta({ description: 'The fan’s `sub` there' }),
    handle: text,
    name: text,
    points: z.int().meta({ description: 'The balance' }),
    onboardedAt: time.nullable(),
    bannedAt: time.nullable().meta({ description: 'Since when the fan is banned; null if not' }),
    createdAt: time,
  })
  .meta({ id: 'FanSummary' });

const FanMatchSchema = FanSummarySchema.extend({
  matchedBy: z.array(z.enum(['id', 'subject', 'handle', 'handle_prefix'])).meta({
    description: 'How the query found this fan: id, subject, handle, or a handle’s first letters',
  }),
}).meta({ id: 'FanMatch' });

const FanBoardSchema = z
  .object({
    period: z.enum(['all', 'week', 'month']),
    season: z.string().nullable().meta({ description: '2026-W47, 2026-11; null for all-time' }),
    points: z.int(),
    hidden: z.boolean().meta({ description: 'Banned: on no board and in no rank' }),
    rank: z.int().min(1).nullable().meta({ description: 'On the whole board; null when hidden' }),
    teamRank: z
      .int()
      .min(1)
      .nullable()
      .meta({ description: 'Among the fans of their team; null without a team, or hidden' }),
  })
  .meta({ id: 'FanBoard' });

const FanEventSchema = z
  .object({
    clientId: z.string().meta({ description: 'The service that sent it' }),
    eventId: z.string().meta({ description: 'The sender’s id of it' }),
    type: z.string(),
    value: z.int().min(1),
    occurredAt: time,
    points: z.int().meta({ description: 'What the event itself earned' }),
    balance: z.int().meta({ description: 'The balance after it and what it completed' }),
    questsCompleted: z.array(CompletedQuestSchema),
    recordedAt: time,
    reversedAt: time.nullable(),
  })
  .meta({ id: 'FanEvent' });

const LedgerPageSchema = z
  .object({ entries: z.array(LedgerEntrySchema), nextCursor })
  .meta({ id: 'FanLedgerPage' });
const EventsPageSchema = z
  .object({ entries: z.array(FanEventSchema), nextCursor })
  .meta({ id: 'FanEventsPage' });

const profileShape = Object.fromEntries(PROFILE_FIELDS.map((field) => [field, text])) as Record<
  ProfileField,
  typeof text
>;

const FanStorySchema = z
  .object({
    fan: FanSummarySchema,
    profile: z.object(profileShape).meta({ description: 'The eight profile fields' }),
    boards: z.array(FanBoardSchema).meta({ description: 'Every board the fan has an entry on' }),
    quests: z.array(QuestProgressSchema).meta({ description: 'Every active quest, now' }),
    streaks: z.array(StreakSchema),
    ledger: LedgerPageSchema.meta({ description: 'The newest ledger entries, with their sources' }),
    events: EventsPageSchema.meta({ description: 'The newest events recorded for the fan' }),
  })
  .meta({ id: 'FanStory' });

function toSummary(fan: FanSummary): z.input<typeof FanSummarySchema> {
  return {
    id: fan.id,
    issuer: fan.issuer,
    subject: fan.subject,
    handle: fan.handle,
    name: fan.name,
    points: fan.points,
    onboardedAt: fan.onboardedAt?.toISOString() ?? null,
    bannedAt: fan.bannedAt?.toISOString() ?? null,
    createdAt: fan.createdAt.toISOString(),
  };
}

function toBoard(entry: FanBoard): z.input<typeof FanBoardSchema> {
  const season = seasonOfBoard(entry.board);
  return {
    period: season?.period ?? 'all',
    season: season?.id ?? null,
    points: entry.points,
    hidden: entry.hidden,
    rank: entry.rank,
    teamRank: entry.teamRank,
  };
}

function toEvent(event: FanEvent): z.input<typeof FanEventSchema> {
  return {
    clientId: event.clientId,
    eventId: event.eventId,
    type: event.type,
    value: event.value,
    occurredAt: event.occurredAt.toISOString(),
    points: event.points,
    balance: event.balanceAfter,
    questsCompleted: event.questsCompleted as z.input<typeof CompletedQuestSchema>[],
    recordedAt: event.recordedAt.toISOString(),
    reversedAt: event.reversedAt?.toISOString() ?? null,
  };
}

const pageInput = (fallback: number) => ({
  userId,
  limit: limit(fallback),
  before: before.optional(),
});

export const adminFansRouter = router({
  adminFindFans: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/fans',
        summary: 'Find fans by handle, subject or id',
        description:
          '`query` is tried as a user id (when it is a UUID), as a subject of `issuer` (the ' +
          'service’s identity provider by default), as a handle (a leading `@` dropped, any ' +
          'letter case) and as the first letters of handles (in handle order). Each fan ' +
          'once, with how it matched. Deleted accounts are never found.',
        tags: ['admin'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          query: searchText(256).meta({
            description: 'A user id, a subject, a handle or its first letters',
          }),
          issuer: searchText(2048)
            .meta({ description: 'Whose subjects to look in; default the configured issuer' })
            .optional(),
          limit: limit(20),
        })
        .meta({ id: 'AdminFindFansInput' }),
    )
    .output(success(z.object({ fans: z.array(FanMatchSchema) })))
    .query(async ({ ctx, input }) => {
      const fans = await searchFans(ctx.deps.db, {
        query: input.query,
        issuer: input.issuer ?? ctx.deps.config.auth.issuer,
        limit: input.limit,
      });
      return ok({
        fans: fans.map((fan: FanMatch) => ({ ...toSummary(fan), matchedBy: fan.matchedBy })),
      });
    }),

  adminFan: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/fans/{userId}',
        summary: 'A fan’s whole story',
        description:
          'From one snapshot: who the fan is and whether banned, the profile, the balance, ' +
          'every board entry with its ranks, quests and streaks now, and the newest ledger ' +
          'entries (with their sources) and events (with their results); page on with ' +
          '/points and /events. 404 for no such fan (or a deleted one).',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(z.strictObject({ userId }).meta({ id: 'AdminFanInput' }))
    .output(success(FanStorySchema))
    .query(async ({ ctx, input }) => {
      const catalog = await ctx.deps.catalog.current();
      const story = await fanStory(ctx.deps.db, catalog, input.userId, ctx.deps.clock());
      const profile = Object.fromEntries(
        PROFILE_FIELDS.map((field) => [field, story.profile?.[field] ?? null]),
      ) as Record<ProfileField, string | null>;
      return ok({
        fan: toSummary(story.fan),
        profile,
        boards: story.boards.map(toBoard),
        quests: story.game.quests.map(toQuestProgress),
        streaks: story.game.streaks.map(toStreak),
        ledger: {
          entries: story.ledger.entries.map(toLedgerEntry),
          nextCursor: story.ledger.nextCursor,
        },
        events: {
          entries: story.events.entries.map(toEvent),
          nextCursor: story.events.nextCursor,
        },
      });
    }),

  adminFanPoints: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/fans/{userId}/points',
        summary: 'A fan’s points ledger',
        description:
          'Every entry with its source (quest, event, streak, reversal, adjustment), newest ' +
          'first, cursor pages.',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(z.strictObject(pageInput(50)).meta({ id: 'AdminFanPointsInput' }))
    .output(success(LedgerPageSchema))
    .query(async ({ ctx, input }) => {
      const page = await fanLedger(ctx.deps.db, input.userId, {
        limit: input.limit,
        beforeId: input.before,
      });
      return ok({ entries: page.entries.map(toLedgerEntry), nextCursor: page.nextCursor });
    }),

  adminFanEvents: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/fans/{userId}/events',
        summary: 'The events recorded for a fan',
        description:
          'Every event other services recorded for the fan with its result (points, balance ' +
          'after, quests completed, reversed or not), newest first, cursor pages.',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(z.strictObject(pageInput(50)).meta({ id: 'AdminFanEventsInput' }))
    .output(success(EventsPageSchema))
    .query(async ({ ctx, input }) => {
      const page = await fanEvents(ctx.deps.db, input.userId, {
        limit: input.limit,
        beforeId: input.before,
      });
      return ok({ entries: page.entries.map(toEvent), nextCursor: page.nextCursor });
    }),
});
