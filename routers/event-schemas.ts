import { z } from 'zod';
import { eventSubjectProblem } from '../src/auth/subject.js';
import { REJECTION_CODES } from '../src/domain/activity.js';
import { points } from './schemas.js';

/** Schemas of points from activity: events from other services (docs/ACTIVITY.md). */
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
