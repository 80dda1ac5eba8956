import { z } from 'zod';
import {
  decodeLeaderboardCursor,
  decodeLedgerCursor,
  MAX_CURSOR_LENGTH,
} from '../src/domain/cursor.js';
import { PROFILE_FIELDS, type ProfileField } from '../db/profile-fields.js';
import { profileFieldSchemas, teamFilterSchema } from '../src/domain/profile.js';
import { POINTS_HISTORY_LIMIT } from '../src/services/profile.js';
import { eventSubjectProblem } from '../src/auth/subject.js';
import { REJECTION_CODES } from '../src/domain/activity.js';

/**
 * Input and output schemas of every router. Each carries an `id`, so openapi.json
 * lists it once under components/schemas.
 */
const text = z.string().nullable();
const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
const points = z.number().int();

/** The profile fields as stored and sent (src/openapi.ts adds each field's rules). */
const profileFields = Object.fromEntries(PROFILE_FIELDS.map((field) => [field, text])) as Record<
  ProfileField,
  typeof text
>;

export const UserSchema = z
  .object({
    id: z.uuid(),
    ...profileFields,
    points: points.meta({ description: 'Points balance: the sum of the ledger' }),
    onboardedAt: time.nullable(),
    createdAt: time,
    updatedAt: time,
  })
  .meta({ id: 'User' });

export const UpdatedProfileSchema = z
  .object({ ...profileFields, updatedAt: time })
  .meta({ id: 'UpdatedProfile' });

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

/** Where a ledger entry's points came from (src/domain/ledger.ts CreditSource). */
export const CreditSourceSchema = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('quest'),
      questId: z.string(),
      period: z
        .string()
        .nullable()
        .meta({ description: 'The period of a repeating quest; null for a one-time quest' }),
      tier: z.number().int().min(1),
    }),
    z.object({
      kind: z.literal('event'),
      type: z.string(),
      clientId: z.string().meta({ description: 'The service that sent the event' }),
      eventId: z.string().meta({ description: 'The sender’s id of the event' }),
    }),
    z.object({
      kind: z.literal('streak'),
      streakId: z.string(),
      length: z.number().int().min(1),
    }),
    z.object({
      kind: z.literal('reversal'),
      type: z.string(),
      clientId: z.string(),
      eventId: z.string().meta({ description: 'The event reversed' }),
    }),
    z.object({
      kind: z.literal('adjustment'),
      by: z.string().meta({ description: 'The admin client that made it' }),
      note: z.string(),
    }),
  ])
  .meta({ id: 'CreditSource', description: 'What earned (or took back) these points' });

export const LedgerEntrySchema = z
  .object({
    id: z.string().meta({ description: 'Opaque entry id' }),
    delta: points,
    reason: z.string(),
    questId: z.string().nullable(),
    source: CreditSourceSchema,
    balanceAfter: points,
    createdAt: time,
  })
  .meta({ id: 'LedgerEntry' });

export const PointsHistorySchema = z
  .object({
    balance: points,
    entries: z
      .array(LedgerEntrySchema)
      .max(POINTS_HISTORY_LIMIT)
      .meta({ description: `Newest first, at most ${POINTS_HISTORY_LIMIT}` }),
  })
  .meta({ id: 'PointsHistory' });

export const QuestProgressSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    points: points.meta({
      description: 'What the next tier awards (the last tier’s once all are reached)',
    }),
    progress: z.number().int().min(0),
    target: z.number().int().min(1).meta({ description: 'The next tier’s target' }),
    status: z
      .enum(['in_progress', 'completed'])
      .meta({ description: 'completed once every tier is reached' }),
    completedAt: time.nullable(),
    period: z
      .string()
      .nullable()
      .meta({
        description:
          'A repeating quest’s period (2026-11-25, 2026-W48, 2026-11: UTC day, ISO week, month); ' +
          'null for a one-time quest',
      }),
    resetsAt: time
      .nullable()
      .meta({ description: 'When a repeating quest starts afresh; null for a one-time quest' }),
    tiersReached: z.number().int().min(0),
    tiers: z
      .array(z.object({ target: z.number().int().min(1), points }))
      .meta({ description: 'Each tier’s target and points, in order' }),
  })
  .meta({ id: 'QuestProgress' });

export const StreakSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    period: z.enum(['day', 'week']).meta({ description: 'Counted in UTC days or ISO weeks' }),
    current: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Consecutive periods with a qualifying event; 0 once broken' }),
    best: z.number().int().min(0),
    nextDeadline: time.nullable().meta({
      description:
        'The streak breaks unless a qualifying event happens before this; null when none',
    }),
    countedThisPeriod: z.boolean(),
    milestones: z.array(z.object({ length: z.number().int().min(1), points })),
  })
  .meta({ id: 'Streak' });

export const QuestSyncSchema = z
  .object({
    pointsAwarded: points,
    completed: z.array(QuestProgressSchema).meta({ description: 'Quests this call completed' }),
    quests: z.array(QuestProgressSchema).meta({ description: 'Every active quest' }),
  })
  .meta({ id: 'QuestSync' });

/** `{ success: true, data }`: the success envelope every operation answers with. */
export function success<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/**
 * A body that refuses unknown keys. The message names each key; `hints` gives a
 * better one where we know what the caller meant.
 */
function strictBody<K extends ProfileField>(
  fields: readonly K[],
  hints: Record<string, string> = {},
) {
  const shape = Object.fromEntries(
    fields.map((field) => [field, profileFieldSchemas[field].optional()]),
  ) as { [F in K]: z.ZodOptional<(typeof profileFieldSchemas)[F]> };
  // Own keys only: `hints.constructor` is Object, not a hint.
  const hint = (key: string) => (Object.hasOwn(hints, key) ? hints[key] : undefined);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => hint(key) ?? `Unknown field "${key}"`).join('; ')
        : undefined,
  });
}

export const UpdateUserInput = strictBody(PROFILE_FIELDS)
  .refine((body) => Object.keys(body).length > 0, {
    message: 'No fields: send at least one field to change',
    // Only for an otherwise valid body: an unknown key alone is its own error.
    when: (payload) => payload.issues.length === 0,
  })
  .meta({
    id: 'UpdateUserInput',
    // The refine above, for openapi.json.
    minProperties: 1,
    description:
      'Any of the eight profile fields. Omitted: unchanged. null or an empty string: cleared ' +
      '(a handle can be changed, not cleared). Unknown keys are refused.',
  });

export const OnboardProfileInput = strictBody(
  PROFILE_FIELDS.filter((field) => field !== 'rivalTeam'),
  { rivalTeam: 'rivalTeam is not accepted when onboarding: set it with PATCH /api/user' },
).meta({
  id: 'OnboardProfileInput',
  description:
    'Any profile field except rivalTeam (set that with PATCH /api/user), with the same rules as ' +
    'PATCH /api/user. An empty object onboards without changing the profile.',
});

export const OnboardingSchema = z
  .object({
    user: UserSchema,
    updatedProfile: UpdatedProfileSchema,
    leaderboardEntry: LeaderboardEntrySchema,
    pointsHistory: PointsHistorySchema,
    questSync: QuestSyncSchema,
  })
  .meta({ id: 'Onboarding' });

// ---------------------------------------------------------------------------
// Read APIs: query inputs and page shapes.

export const pageLimit = z
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .meta({ description: 'Entries per page, 1–100 (default 20)' });

/** An opaque cursor: decoded here, so a forged one is a 400 naming `cursor`. */
export function cursorParam<T>(decode: (cursor: string) => T | undefined) {
  return z
    .string()
    .max(MAX_CURSOR_LENGTH)
    .transform((value, ctx) => {
      const decoded = decode(value);
      if (decoded === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'Not a cursor this list gave out: pass nextCursor back unchanged',
        });
        return z.NEVER;
      }
      return decoded;
    })
    .meta({ description: 'nextCursor of the previous page, unchanged; omit for the first page' });
}

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

export const PointsHistoryInput = z
  .strictObject({
    limit: pageLimit,
    cursor: cursorParam(decodeLedgerCursor).optional(),
  })
  .meta({ id: 'PointsHistoryInput' });

export const nextCursor = z
  .string()
  .nullable()
  .meta({ description: 'Pass as `cursor` for the next page; null on the last page' });

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

export const PointsHistoryPageSchema = z
  .object({
    entries: z.array(LedgerEntrySchema).meta({ description: 'Newest first' }),
    nextCursor,
  })
  .meta({ id: 'PointsHistoryPage' });

export const QuestListSchema = z
  .object({
    quests: z.array(QuestProgressSchema).meta({
      description:
        'Every active quest in the period holding now, with the caller’s progress, in display order',
    }),
    streaks: z.array(StreakSchema).meta({ description: 'Every active streak' }),
  })
  .meta({ id: 'QuestList' });

// ---------------------------------------------------------------------------
// The account's whole life: export and deletion (docs/ACCOUNT.md).

export const HandleChangeSchema = z
  .object({
    oldHandle: z.string().nullable().meta({ description: 'null when the first handle was set' }),
    newHandle: z.string(),
    kind: z.enum(['first', 'change', 'recase']).meta({
      description:
        'first: the first handle; change: another handle (starts the cooldown); recase: the ' +
        'same handle in other letter case',
    }),
    changedAt: time,
  })
  .meta({ id: 'HandleChange' });

export const BoardStandingSchema = z
  .object({
    period: z.enum(['all', 'week', 'month']),
    season: z
      .string()
      .nullable()
      .meta({ description: 'The season (2026-W47, 2026-11); null for the all-time board' }),
    points,
    rank: z.number().int().min(1),
  })
  .meta({ id: 'BoardStanding' });

export const AccountExportSchema = z
  .object({
    exportedAt: time,
    identity: z
      .object({ issuer: z.string(), subject: z.string() })
      .meta({ description: 'The identity provider and subject the account is keyed by' }),
    user: UserSchema,
    handleHistory: z.array(HandleChangeSchema).meta({ description: 'Every change, oldest first' }),
    handleReservations: z
      .array(z.object({ handle: z.string(), reservedUntil: time }))
      .meta({ description: 'Handles you gave up, reserved for you (lower-cased) until then' }),
    pointsLedger: z
      .object({
        balance: points,
        entries: z.array(LedgerEntrySchema).meta({ description: 'The whole ledger, oldest first' }),
      })
      .meta({ description: 'Every points entry ever recorded for you' }),
    quests: z.array(QuestProgressSchema),
    streaks: z.array(StreakSchema),
    activity: z
      .array(
        z.object({
          clientId: z.string(),
          eventId: z.string(),
          type: z.string(),
          value: z.number().int().min(1),
          occurredAt: time,
          points,
          recordedAt: time,
          reversedAt: time.nullable(),
        }),
      )
      .meta({ description: 'Every event other services recorded for you, oldest first' }),
    boards: z
      .array(BoardStandingSchema)
      .meta({ description: 'Your entry on each board you are on, with its rank now' }),
  })
  .meta({ id: 'AccountExport' });

export const AccountDeletionSchema = z
  .object({
    deleted: z.literal(true),
    deletedAt: time,
  })
  .meta({ id: 'AccountDeletion' });

// ---------------------------------------------------------------------------
// Points from activity: events from other services (docs/ACTIVITY.md).

/** Most events in one batch. */
export const MAX_EVENTS_PER_BATCH = 100;

const EventInputSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[\x21-\x7E]{1,128}$/, 'Must be 1–128 printable ASCII characters, no spaces')
      .meta({
        description:
          'Your idempotency key for this event: sending the same id again records nothing twice',
      }),
    subject: z
      .string()
      .superRefine((value, ctx) => {
        const problem = eventSubjectProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .meta({ description: 'The fan’s `sub` at the shared identity provider' }),
    type: z.string().min(1).max(64).meta({ description: 'An event type of the catalog' }),
    value: z.number().optional().meta({
      description:
        'A whole number from 1 to the type’s maxValue (default 1); any other number rejects this event (INVALID_VALUE)',
    }),
    occurredAt: z.iso.datetime({ offset: true }).optional().meta({
      description:
        'When it happened (default: when received); at most EVENT_MAX_AGE_HOURS (default 24) ago and 5 minutes ahead',
    }),
  })
  .meta({ id: 'EventInput' });

export const RecordEventsInput = z
  .strictObject({
    events: z.array(EventInputSchema).min(1).max(MAX_EVENTS_PER_BATCH),
  })
  .meta({ id: 'RecordEventsInput' });

export const CompletedQuestSchema = z
  .object({
    id: z.string(),
    period: z.string().nullable(),
    tier: z.number().int().min(1),
    points,
  })
  .meta({ id: 'CompletedQuest' });

const recordedFields = {
  points: points.meta({ description: 'What the event itself earned (its type’s points × value)' }),
  balance: points.meta({ description: 'The fan’s balance after the event and what it completed' }),
  questsCompleted: z.array(CompletedQuestSchema),
  reversed: z.boolean().meta({ description: 'Whether the event has since been reversed' }),
};

export const EventResultSchema = z
  .discriminatedUnion('status', [
    z.object({ id: z.string(), status: z.literal('recorded'), ...recordedFields }),
    z.object({ id: z.string(), status: z.literal('duplicate'), ...recordedFields }).meta({
      description: 'The id was recorded before: its original result; nothing awarded twice',
    }),
    z.object({
      id: z.string(),
      status: z.literal('rejected'),
      error: z.object({
        code: z.enum(REJECTION_CODES),
        message: z.string(),
      }),
    }),
  ])
  .meta({ id: 'EventResult' });

export const RecordEventsSchema = z
  .object({
    results: z.array(EventResultSchema).meta({ description: 'One per event, in the order sent' }),
  })
  .meta({ id: 'RecordEvents' });

export const ReverseEventInput = z
  .strictObject({
    id: z
      .string()
      .regex(/^[\x21-\x7E]{1,128}$/)
      .meta({ description: 'The id you sent the event with' }),
  })
  .meta({ id: 'ReverseEventInput' });

export const ReversalSchema = z
  .object({
    id: z.string(),
    status: z
      .enum(['reversed', 'already_reversed'])
      .meta({ description: 'already_reversed: an earlier call reversed it; nothing changed' }),
    points: points.meta({ description: 'The points taken back (negative), or 0' }),
    balance: points.meta({ description: 'The fan’s balance now' }),
  })
  .meta({ id: 'Reversal' });
