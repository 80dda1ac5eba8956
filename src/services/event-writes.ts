import type {
  LedgerCredit,
  StateScope,
  UsageWindow,
  UserState,
  UserWritePlan,
} from '../../db/queries/user-write/index.js';
import { unchangedPlan } from '../../db/queries/user-write/index.js';
import {
  capWindows,
  usageKey,
  type AcceptedEvent,
  type FanActivityPlan,
} from '../domain/activity.js';
import { writeBoards } from '../domain/boards.js';
import type { Catalog } from '../domain/catalog.js';
import {
  pointsAwarded,
  questCompleted,
  streakChanged,
  type NewLiveEvent,
} from '../domain/events.js';
import { pointsMove, type Award } from '../domain/ledger.js';
import { currentPeriods, periodAt } from '../domain/periods.js';
import { placeMoves } from '../domain/placement.js';

/** The sending service, as its token names it. */
export interface Sender {
  issuer: string;
  clientId: string;
}

/**
 * What a fan's state read covers: the boards of `now` (the fan's entries
 * move), the quest periods the events and `now` fall in, the cap windows the
 * events count in, and the events' ids.
 */
export function fanScope(
  catalog: Catalog,
  sender: Sender,
  events: readonly AcceptedEvent[],
  now: Date,
): StateScope {
  const periods = new Set(currentPeriods(now));
  const usage = new Map<string, UsageWindow>();
  for (const event of events) {
    for (const kind of ['day', 'week', 'month'] as const) {
      periods.add(periodAt(kind, event.occurredAt).id);
    }
    for (const { span } of capWindows(event.type.definition, event.occurredAt)) {
      const key = usageKey(event.type.definition.key, span);
      usage.set(key, {
        key,
        type: event.type.definition.key,
        from: span.startsAt,
        to: span.endsAt,
      });
    }
  }
  return {
    boards: writeBoards(now),
    periods: [...periods],
    usage: [...usage.values()],
    recorded: { clientId: sender.clientId, ids: events.map((event) => event.id) },
  };
}

/**
 * The fan's write: the ledger entries of every award, on `boards` (those of
 * `now` once the fan is onboarded; before, none: the points are kept in the
 * ledger and reach the boards at onboarding); the quests, streaks and events
 * rows; and the announcements, each event's followed by what it completed.
 */
export function activityWrite(
  state: UserState,
  sender: Sender,
  plan: FanActivityPlan,
  boards: readonly string[],
  now: Date,
): { write: UserWritePlan; balances: Map<string, number> } {
  const { recorded } = plan;
  const onBoards = state.user.onboardedAt !== null;
  const moves = plan.awards.map((award) => pointsMove(award, boards));
  const placed = placeMoves(state, onBoards, moves);
  const credits = new Map<string, LedgerCredit>(
    placed.credits.map((credit) => [credit.key, credit]),
  );
  // An event's balance is the one after the last thing it earned.
  const balances = new Map<string, number>();
  let balance = state.points;
  const events: NewLiveEvent[] = [];
  const announce = (award: Award) => {
    const credit = credits.get(award.key);
    if (!credit) return;
    balance = credit.balanceAfter;
    events.push(pointsAwarded({ ...credit, source: award.source }));
  };
  for (const event of recorded) {
    const [own, ...earned] = event.awards;
    if (own?.source.kind === 'event') announce(own);
    for (const tier of event.tiers) {
      events.push(questCompleted(tier));
      const award = earned.find((candidate) => candidate.key === tier.key);
      if (award) announce(award);
    }
    for (const streakEvent of event.streakEvents) events.push(streakChanged(streakEvent));
    for (const milestone of event.milestones) {
      const award = earned.find((candidate) => candidate.key === milestone.key);
      if (award) announce(award);
    }
    balances.set(event.event.id, balance);
  }
  const write: UserWritePlan = {
    ...unchangedPlan(state, now),
    boards: placed.boards,
    quests: plan.quests.plan().writes,
    streaks: plan.streaks.plan().writes,
    credits: placed.credits,
    activity: {
      recorded: recorded.map((event) => ({
        clientId: sender.clientId,
        eventId: event.event.id,
        type: event.event.type.definition.key,
        typeVersion: event.event.type.version,
        value: event.event.value,
        occurredAt: event.event.occurredAt,
        bodyHash: event.event.bodyHash,
        points: event.points,
        balanceAfter: balances.get(event.event.id)!,
        questsCompleted: event.questsCompleted,
      })),
    },
    events: events.map((event) => ({ type: event.type, payload: event.data })),
    announceRanks: onBoards && placed.credits.length > 0,
    rank: false,
  };
  return { write, balances };
}
