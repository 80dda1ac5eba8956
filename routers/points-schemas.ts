import { z } from 'zod';
import { decodeLedgerCursor } from '../src/domain/cursor.js';
import { POINTS_HISTORY_LIMIT } from '../src/services/profile.js';
import { cursorParam, nextCursor, pageLimit, points, time } from './schemas.js';

/**
 * Schemas of points and progress: the points ledger and its pages, quests and
 * streaks.
 */
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

export const PointsHistoryInput = z
  .strictObject({
    limit: pageLimit,
    cursor: cursorParam(decodeLedgerCursor).optional(),
  })
  .meta({ id: 'PointsHistoryInput' });

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
