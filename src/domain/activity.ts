import { createHash } from 'node:crypto';
import type { Catalog, EventTypeDefinition, Versioned } from './catalog.js';
import { periodAt, type PeriodSpan } from './periods.js';
import { MAX_POINTS, withinPointsLimit, type Award } from './ledger.js';
import { QuestBook, questAward, type ReachedTier, type StoredQuests } from './quests.js';
import {
  StreakBook,
  streakAward,
  type ReachedMilestone,
  type StoredStreak,
  type StreakEvent,
} from './streaks.js';

/**
 * Points from activity (docs/ACTIVITY.md): what one fan's events record,
 * earn and complete, planned from the fan's state with plain functions. The
 * caller stores the plan guarded by the fan's version, so a cap or a balance
 * read here is exact when the write lands.
 */

/**
 * How far back `occurredAt` may lie (the default of EVENT_MAX_AGE_HOURS): a
 * day, so a backdated batch can fill at most yesterday's caps and quests
 * besides today's (docs/ACTIVITY.md, "Late events and seasons").
 */
export const DEFAULT_EVENT_MAX_AGE_HOURS = 24;
/**
 * How many fans no account exists for yet one sending service may create per
 * minute (the default of EVENT_NEW_SUBJECTS_PER_MINUTE): ten a second, far
 * above what a sender whose fans sign in to the app first needs, and a
 * ceiling on the accounts a runaway or mistaken sender makes (docs/ACTIVITY.md,
 * "Fans the service has not seen").
 */
export const DEFAULT_NEW_SUBJECTS_PER_MINUTE = 600;

/** How far ahead of the server's clock `occurredAt` may lie (clock skew between services). */
export const EVENT_MAX_FUTURE_MS = 5 * 60_000;

/** Why one event of a batch was not recorded. */
export const REJECTION_CODES = [
  'UNKNOWN_EVENT_TYPE',
  'INVALID_VALUE',
  'OCCURRED_AT_OUT_OF_RANGE',
  'CAP_REACHED',
  'EVENT_ID_REUSED',
  'FAN_BANNED',
  'UNKNOWN_SUBJECT',
  'NEW_SUBJECT_LIMIT',
  'POINTS_LIMIT_REACHED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;
export type RejectionCode = (typeof REJECTION_CODES)[number];

export interface Rejection {
  code: RejectionCode;
  message: string;
}

/** An event as sent, after the batch's schema accepted its shape. */
export interface SentEvent {
  id: string;
  subject: string;
  type: string;
  /** As sent: checked per event, so a bad value rejects that event only. */
  value?: number | undefined;
  occurredAt?: string | undefined;
}

/** The part of an event that must match when its id is sent again. */
export function eventBodyHash(event: SentEvent): string {
  const body = [event.subject, event.type, event.value ?? 1, event.occurredAt ?? null];
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/** An event that passed the checks that need no state. */
export interface AcceptedEvent {
  /** Its place in the batch. */
  index: number;
  id: string;
  type: Versioned<EventTypeDefinition>;
  value: number;
  occurredAt: Date;
  bodyHash: string;
}

/**
 * The checks that need only the catalog and the clock: a known, active type,
 * a whole value from 1 to the type's maxValue, an `occurredAt` within the
 * accepted window.
 */
export function checkEvent(
  event: SentEvent,
  index: number,
  catalog: Catalog,
  now: Date,
  maxAgeHours: number,
): AcceptedEvent | Rejection {
  const type = catalog.eventTypes.get(event.type);
  if (!type) {
    return { code: 'UNKNOWN_EVENT_TYPE', message: `No active event type "${event.type}"` };
  }
  const value = event.value ?? 1;
  const { maxValue } = type.definition;
  if (!Number.isSafeInteger(value) || value < 1 || value > maxValue) {
    return {
      code: 'INVALID_VALUE',
      message: `value must be a whole number from 1 to ${maxValue} for "${event.type}"`,
    };
  }
  const occurredAt = event.occurredAt === undefined ? now : new Date(event.occurredAt);
  const age = now.getTime() - occurredAt.getTime();
  if (Number.isNaN(age) || age > maxAgeHours * 3_600_000 || -age > EVENT_MAX_FUTURE_MS) {
    return {
      code: 'OCCURRED_AT_OUT_OF_RANGE',
      message: `occurredAt must lie within the last ${maxAgeHours} hours (and at most 5 minutes ahead)`,
    };
  }
  return { index, id: event.id, type, value, occurredAt, bodyHash: eventBodyHash(event) };
}

export function isRejection(value: AcceptedEvent | Rejection): value is Rejection {
  return 'code' in value;
}

/**
 * Why the events of a subject no user has were not recorded: the deployment
 * refuses unknown subjects (EVENT_UNKNOWN_SUBJECTS=reject), or the sender
 * has created as many new fans this minute as it may.
 */
export function unknownSubjectRejection(
  reason: { refused: true } | { perMinute: number },
): Rejection {
  return 'refused' in reason
    ? {
        code: 'UNKNOWN_SUBJECT',
        message:
          'No fan has this subject: this service records events only for fans who have signed in',
      }
    : {
        code: 'NEW_SUBJECT_LIMIT',
        message:
          `This client has created ${reason.perMinute} new fans in the last minute, the most it ` +
          'may: send it again later',
      };
}

/** The cap windows an event of this type counts in. */
export function capWindows(
  type: EventTypeDefinition,
  at: Date,
): { span: PeriodSpan; cap: number }[] {
  const windows: { span: PeriodSpan; cap: number }[] = [];
  if (type.caps.day !== undefined) windows.push({ span: periodAt('day', at), cap: type.caps.day });
  if (type.caps.week !== undefined)
    windows.push({ span: periodAt('week', at), cap: type.caps.week });
  return windows;
}

/** The key of a fan's usage of a type in one cap window. */
export function usageKey(type: string, span: PeriodSpan): string {
  return `${type}|${span.kind}|${span.id}`;
}

/** What a fan's plan starts from: read with the fan's state, exact under the write's guard. */
export interface FanActivityState {
  /** Units already recorded (and not reversed), by usageKey, for the windows the batch touches. */
  usage: ReadonlyMap<string, number>;
  quests: StoredQuests;
  streaks: ReadonlyMap<string, StoredStreak>;
  /** The fan's balance, and their entry's points on each board in `boards` (absent: no entry yet). */
  balance: number;
  entries: ReadonlyMap<string, number>;
}

/** A quest tier one event completed, as its result reports it. */
export interface CompletedQuest {
  id: string;
  period: string | null;
  tier: number;
  points: number;
}

/** An event recorded by the plan (an `activity_events` row). */
export interface RecordedEvent {
  event: AcceptedEvent;
  /** The points the event itself earned (its type's points × value). */
  points: number;
  /** What it earned, in order: its own points, then what it completed. */
  awards: Award[];
  questsCompleted: CompletedQuest[];
  /** The quest tiers and streak milestones it reached, and its streak moves. */
  tiers: ReachedTier[];
  streakEvents: StreakEvent[];
  milestones: ReachedMilestone[];
}

export type EventOutcome =
  { status: 'recorded'; recorded: RecordedEvent } | { status: 'rejected'; rejection: Rejection };

/** What the fan's events change, for one guarded write. */
export interface FanActivityPlan {
  outcomes: Map<number, EventOutcome>;
  recorded: RecordedEvent[];
  /** Every award, in order (the recorded events' awards, one after the other). */
  awards: Award[];
  quests: QuestBook;
  streaks: StreakBook;
}

/** The ledger key of an event's award (unique per user, like every award). */
export function eventAwardKey(clientId: string, eventId: string): string {
  return `event:${clientId}:${eventId}`;
}

/** The ledger key of an event's reversal. */
export function reversalKey(clientId: string, eventId: string): string {
  return `reversal:${clientId}:${eventId}`;
}

/**
 * Plans a fan's accepted events, in batch order: each is capped against the
 * fan's usage (including the batch's earlier events), earns its points, moves
 * the quests and streaks counting its type, and earns what those reach. An
 * event that would pass a cap, or whose awards would take the balance or an
 * entry on `boards` past MAX_POINTS, is rejected whole and changes nothing.
 */
export function planFanEvents(input: {
  catalog: Catalog;
  clientId: string;
  state: FanActivityState;
  /** The boards every award of the write moves (none before onboarding). */
  boards: readonly string[];
  events: readonly AcceptedEvent[];
  now: Date;
}): FanActivityPlan {
  const { catalog, clientId, state, boards, now } = input;
  const usage = new Map(state.usage);
  const quests = new QuestBook(catalog, state.quests);
  const streaks = new StreakBook(catalog, state.streaks);
  const plan: FanActivityPlan = { outcomes: new Map(), recorded: [], awards: [], quests, streaks };
  // What the events planned so far have added to the balance and to every board entry.
  let added = 0;
  const totalsAfter = (more: number) => [
    state.balance + added + more,
    ...boards.map((board) => (state.entries.get(board) ?? 0) + added + more),
  ];

  for (const event of input.events) {
    const definition = event.type.definition;
    const windows = capWindows(definition, event.occurredAt);
    const over = windows.find(
      ({ span, cap }) => (usage.get(usageKey(definition.key, span)) ?? 0) + event.value > cap,
    );
    if (over) {
      plan.outcomes.set(event.index, {
        status: 'rejected',
        rejection: {
          code: 'CAP_REACHED',
          message: `"${definition.key}" is capped at ${over.cap} per ${over.span.kind === 'day' ? 'day' : 'week'} (UTC) for each fan`,
        },
      });
      continue;
    }

    const restoreQuests = quests.checkpoint();
    const restoreStreaks = streaks.checkpoint();
    const points = definition.points * event.value;
    const awards: Award[] = [
      {
        key: eventAwardKey(clientId, event.id),
        delta: points,
        source: { kind: 'event', type: definition.key, clientId, eventId: event.id },
      },
    ];
    const tiers = quests.recordEvent(definition.key, event.value, event.occurredAt, now);
    awards.push(...tiers.map(questAward));
    const { events: streakEvents, milestones } = streaks.recordEvent(
      definition.key,
      event.occurredAt,
    );
    awards.push(...milestones.map(streakAward));
    const earned = awards.reduce((sum, award) => sum + award.delta, 0);
    if (!withinPointsLimit(totalsAfter(earned))) {
      restoreQuests();
      restoreStreaks();
      plan.outcomes.set(event.index, {
        status: 'rejected',
        rejection: {
          code: 'POINTS_LIMIT_REACHED',
          message:
            `Its ${earned} points would take the fan's balance or a board entry past ` +
            `${MAX_POINTS.toLocaleString('en-US')}, the most either may hold`,
        },
      });
      continue;
    }
    added += earned;
    for (const { span } of windows) {
      const key = usageKey(definition.key, span);
      usage.set(key, (usage.get(key) ?? 0) + event.value);
    }
    const recorded: RecordedEvent = {
      event,
      points,
      awards: awards.filter((award) => award.delta !== 0),
      questsCompleted: tiers.map((tier) => ({
        id: tier.instance.quest.definition.key,
        period: tier.instance.span?.id ?? null,
        tier: tier.tierIndex + 1,
        points: tier.points,
      })),
      tiers,
      streakEvents,
      milestones,
    };
    plan.recorded.push(recorded);
    plan.awards.push(...recorded.awards);
    plan.outcomes.set(event.index, { status: 'recorded', recorded });
  }
  return plan;
}
