import { z } from 'zod';
import { PROFILE_FIELDS, type ProfileField } from '../db/profile-fields.js';
import { profileFieldSchemas } from '../src/domain/profile.js';
import { LeaderboardEntrySchema } from './leaderboard-schemas.js';
import {
  LedgerEntrySchema,
  PointsHistorySchema,
  QuestProgressSchema,
  QuestSyncSchema,
  StreakSchema,
} from './points-schemas.js';
import { points, text, time } from './schemas.js';

/**
 * Schemas of the fan's profile and account: the user, profile updates,
 * onboarding, and the account's export and deletion.
 */
/** The profile fields as stored and sent (src/openapi-schema-rules.ts adds each field's rules). */
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
