import { isTrackedEnvelope, tracked, type TrackedEnvelope } from '@trpc/server';
import { z } from 'zod';
import { pgPositiveInt8Text } from '../src/domain/pg-range.js';
import { teamFilterSchema } from '../src/domain/profile.js';
import { CreditSourceSchema, LeaderboardEntrySchema, QuestProgressSchema } from './schemas.js';

/**
 * Schemas of the live subscriptions (docs/LIVE.md). Subscriptions are served
 * over tRPC only (Server-Sent Events at GET /trpc/<procedure>): the OpenAPI
 * adapter has no streaming responses, so they are not in openapi.json.
 */
const time = z.iso.datetime();
/** "0" or an outbox id, bounded to a positive bigint as every id that reaches a query is. */
const eventId = z
  .string()
  .refine(
    (text) => text === '0' || pgPositiveInt8Text.safeParse(text).success,
    'An event id: the id of the last event you received',
  )
  .meta({ description: 'The id of the last event received; "0" replays everything retained' });

export const MyEventsInput = z
  .strictObject({ lastEventId: eventId.optional() })
  .optional()
  .meta({ id: 'MyEventsInput' });

export const LeaderboardEventsInput = z
  .strictObject({
    team: teamFilterSchema.optional(),
    top: z.number().int().min(1).max(100).default(10),
    // Sent back by reconnecting clients; a board stream always starts with the current top.
    lastEventId: z.string().max(40).optional(),
  })
  .optional()
  .meta({ id: 'LeaderboardEventsInput' });

/**
 * The envelope says which event, when, and whose; `data` what happened.
 * Receivers ignore fields they do not know: the envelope may gain more (what
 * caused an award, when points come from activity as well as quests).
 */
const event = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: z.string(),
    type: z.literal(type),
    timestamp: time.meta({ description: 'When the write that caused it ran' }),
    userId: z.uuid().meta({
      description: 'Whose event it is: the user id of GET /api/user and of board entries',
    }),
    data,
  });

export const PointsAwardedEventSchema = event(
  'points_awarded',
  z.object({
    delta: z
      .number()
      .int()
      .meta({ description: 'The points added (negative for a reversal or a debit)' }),
    balance: z.number().int().meta({ description: 'The balance right after this award' }),
    questId: z.string().nullable(),
    source: CreditSourceSchema,
  }),
);

export const QuestCompletedEventSchema = event(
  'quest_completed',
  z.object({
    quest: QuestProgressSchema,
    tier: z
      .number()
      .int()
      .min(1)
      .meta({ description: 'The tier reached (1 for a one-tier quest)' }),
  }),
);

const streakData = {
  streak: z.object({ id: z.string(), title: z.string(), period: z.enum(['day', 'week']) }),
  current: z.number().int().min(0),
  best: z.number().int().min(0),
};

export const StreakExtendedEventSchema = event('streak_extended', z.object(streakData));

export const StreakLostEventSchema = event(
  'streak_lost',
  z.object({
    ...streakData,
    lost: z.number().int().min(1).meta({ description: 'The length of the streak that ended' }),
  }),
);

export const RankChangedEventSchema = event(
  'rank_changed',
  z.object({
    board: z.enum(['global', 'team']),
    team: z.string().nullable(),
    rank: z.number().int().min(1),
    previousRank: z.number().int().min(1).nullable(),
  }),
);

export const AccountDeletedEventSchema = event(
  'account_deleted',
  z.object({
    userId: z
      .uuid()
      .meta({ description: 'The id the deleted account had (the envelope’s userId)' }),
  }),
);

export const ResyncEventSchema = event(
  'resync',
  z.object({
    reason: z.string(),
  }),
);

/** One message of `myEvents` (and one webhook body). */
export const LiveEventSchema = z
  .discriminatedUnion('type', [
    PointsAwardedEventSchema,
    QuestCompletedEventSchema,
    RankChangedEventSchema,
    StreakExtendedEventSchema,
    StreakLostEventSchema,
    AccountDeletedEventSchema,
    ResyncEventSchema,
  ])
  .meta({ id: 'LiveEvent' });

/** One message of `leaderboardEvents`: the board's current top. */
export const LeaderboardUpdateSchema = z
  .object({
    board: z.enum(['global', 'team']),
    team: z.string().nullable(),
    timestamp: time,
    entries: z.array(LeaderboardEntrySchema).max(100),
  })
  .meta({ id: 'LeaderboardUpdate' });

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Output schema of a subscription: every value it yields is checked against
 * `item` (tRPC's `.output()` otherwise sees only the iterable). With `tracked`,
 * values are `tracked(id, data)` envelopes and `data` is checked.
 */
export function zTrackedIterable<T extends z.ZodType>(item: T) {
  return z
    .custom<AsyncIterable<TrackedEnvelope<z.input<T>>>>(isAsyncIterable)
    .transform(async function* (iterable): AsyncGenerator<
      TrackedEnvelope<z.output<T>>,
      void,
      unknown
    > {
      for await (const envelope of iterable) {
        if (!isTrackedEnvelope(envelope)) throw new Error('Expected a tracked() envelope');
        const [id, data] = envelope;
        yield tracked(id, (await item.parseAsync(data)) as z.output<T>);
      }
    });
}

export function zIterable<T extends z.ZodType>(item: T) {
  return z
    .custom<AsyncIterable<z.input<T>>>(isAsyncIterable)
    .transform(async function* (iterable): AsyncGenerator<z.output<T>, void, unknown> {
      for await (const value of iterable) yield (await item.parseAsync(value)) as z.output<T>;
    });
}
