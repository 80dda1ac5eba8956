import { isTrackedEnvelope, tracked, type TrackedEnvelope } from '@trpc/server';
import { z } from 'zod';
import { pgPositiveInt8Text } from '../src/domain/pg-range.js';
import { teamFilterSchema } from '../src/domain/profile.js';
import { LeaderboardEntrySchema } from './leaderboard-schemas.js';
import { CreditSourceSchema, QuestProgressSchema } from './points-schemas.js';

/**
 * Schemas of the live subscriptions and webhooks (docs/LIVE.md).
 * Subscriptions are served over tRPC only (Server-Sent Events at GET
 * /trpc/<procedure>): the OpenAPI adapter has no streaming responses, so
 * asyncapi.json describes them; openapi.json's `webhooks` describes the
 * webhook bodies. Both are generated from these schemas (npm run openapi).
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
const event = <T extends string, D extends z.ZodType>(
  type: T,
  data: D,
  meta: { id: string; description: string },
) =>
  z
    .object({
      id: z.string().meta({
        description:
          'The event id (the outbox id, a decimal string; the webhook-id header and the SSE id)',
      }),
      type: z.literal(type),
      timestamp: time.meta({ description: 'When the write that caused it ran' }),
      userId: z.uuid().meta({
        description: 'Whose event it is: the user id of GET /api/user and of board entries',
      }),
      data,
    })
    .meta(meta);

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
  {
    id: 'PointsAwardedEvent',
    description: "Points were added to the user's balance (or taken back: a negative delta).",
  },
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
  {
    id: 'QuestCompletedEvent',
    description: 'The user completed a quest, or reached a further tier of one.',
  },
);

const streakData = {
  streak: z.object({ id: z.string(), title: z.string(), period: z.enum(['day', 'week']) }),
  current: z.number().int().min(0),
  best: z.number().int().min(0),
};

export const StreakExtendedEventSchema = event('streak_extended', z.object(streakData), {
  id: 'StreakExtendedEvent',
  description: 'A streak of the user grew by one period.',
});

export const StreakLostEventSchema = event(
  'streak_lost',
  z.object({
    ...streakData,
    lost: z.number().int().min(1).meta({ description: 'The length of the streak that ended' }),
  }),
  {
    id: 'StreakLostEvent',
    description: 'A streak of the user ended: a period passed without its activity.',
  },
);

export const RankChangedEventSchema = event(
  'rank_changed',
  z.object({
    board: z.enum(['global', 'team']),
    team: z.string().nullable(),
    rank: z.number().int().min(1),
    previousRank: z.number().int().min(1).nullable(),
  }),
  {
    id: 'RankChangedEvent',
    description:
      "The user's own rank moved on the whole board or their team's, after their points changed. Users pushed down by someone else's points are not told.",
  },
);

export const AccountDeletedEventSchema = event(
  'account_deleted',
  z.object({
    userId: z
      .uuid()
      .meta({ description: 'The id the deleted account had (the envelope’s userId)' }),
  }),
  {
    id: 'AccountDeletedEvent',
    description:
      'An account was deleted (its other events went with it): erase what you hold of this user. Webhooks only.',
  },
);

export const ResyncEventSchema = event(
  'resync',
  z.object({
    reason: z.string(),
  }),
  {
    id: 'ResyncEvent',
    description:
      "Streams only: the lastEventId resumed from is no longer retained; reload state from the read APIs and carry on from this message's id.",
  },
);

/**
 * The one webhook body that is about no fan: an admin's test of an endpoint
 * (POST /api/admin/webhook-endpoints/{id}/test). Not an outbox event: its id
 * is taken from the same sequence, so it is never another event's.
 */
export const WebhookTestEventSchema = z
  .object({
    id: z.string().meta({ description: 'A fresh event id (the webhook-id header)' }),
    type: z.literal('webhook_test'),
    timestamp: time.meta({ description: 'When the admin asked for it' }),
    data: z.object({ endpointId: z.uuid().meta({ description: 'The endpoint tested' }) }),
  })
  .meta({
    id: 'WebhookTestEvent',
    description:
      'An admin tested this endpoint: answer 2xx once the signature verifies. Sent whatever the ' +
      'endpoint’s event types; never retried.',
  });

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
 * `item`'s check, run once per message object however many streams yield
 * it (an event of a notification reaches every stream of its user, a
 * board's top every stream of the board): its output is frozen, and the
 * frozen output is what every stream sends, serialised once
 * (src/live/json-once.ts). A message is checked when it is first yielded
 * and never changes after.
 */
function checkedOnce<T extends z.ZodType>(item: T): (value: unknown) => Promise<z.output<T>> {
  const checked = new WeakMap<object, Promise<z.output<T>>>();
  return (value) => {
    if (typeof value !== 'object' || value === null) return item.parseAsync(value);
    const known = checked.get(value);
    if (known !== undefined) return known;
    const output = item.parseAsync(value).then((parsed) => Object.freeze(parsed) as z.output<T>);
    checked.set(value, output);
    return output;
  };
}

/**
 * Output schema of a subscription: every value it yields is checked against
 * `item` (tRPC's `.output()` otherwise sees only the iterable), once per
 * message object (checkedOnce). With `tracked`, values are `tracked(id, data)`
 * envelopes and `data` is checked.
 */
export function zTrackedIterable<T extends z.ZodType>(item: T) {
  const check = checkedOnce(item);
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
        yield tracked(id, (await check(data)) as z.output<T>);
      }
    });
}

export function zIterable<T extends z.ZodType>(item: T) {
  const check = checkedOnce(item);
  return z
    .custom<AsyncIterable<z.input<T>>>(isAsyncIterable)
    .transform(async function* (iterable): AsyncGenerator<z.output<T>, void, unknown> {
      for await (const value of iterable) yield (await check(value)) as z.output<T>;
    });
}

/**
 * Every event a webhook receiver can get, one POST each (all but `resync`,
 * which only a stream sends, and with the admin's `webhook_test`): the single
 * source of openapi.json's `webhooks`.
 */
export const WEBHOOK_EVENTS = [
  PointsAwardedEventSchema,
  QuestCompletedEventSchema,
  RankChangedEventSchema,
  StreakExtendedEventSchema,
  StreakLostEventSchema,
  AccountDeletedEventSchema,
  WebhookTestEventSchema,
].map((schema) => ({ type: schema.shape.type.value, schema }));

/**
 * The live subscriptions with their inputs and messages: the single source of
 * asyncapi.json (src/asyncapi.ts). `tracked`: each message's SSE `id` is its
 * event id, sent back to resume.
 */
export const LIVE_STREAMS = [
  {
    procedure: 'myEvents',
    summary: 'The signed-in user’s events as they commit',
    description:
      'Each message is one of the user’s events (LiveEvent; every type but account_deleted). ' +
      'Resume with the last id (Last-Event-ID header or the lastEventId input): the retained ' +
      'events after it are replayed first.',
    input: MyEventsInput,
    message: LiveEventSchema,
    tracked: true,
  },
  {
    procedure: 'leaderboardEvents',
    summary: 'A board’s top, when it changes',
    description:
      'The first message is the board’s current top; then one whenever it changes, at most ' +
      'once a second.',
    input: LeaderboardEventsInput,
    message: LeaderboardUpdateSchema,
    tracked: false,
  },
  {
    procedure: 'adminLeaderboardEvents',
    summary: 'A board’s top, when it changes, for admin clients',
    description:
      'leaderboardEvents for a service token with the `admin` scope (which the fans’ stream ' +
      'refuses): the same input, messages and limits, counted against the admin client. The ' +
      'console’s Leaderboards page reads it.',
    input: LeaderboardEventsInput,
    message: LeaderboardUpdateSchema,
    tracked: false,
  },
] as const;
