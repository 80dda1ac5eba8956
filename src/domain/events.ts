import type { CreditSource } from './ledger.js';
import type { QuestProgress, ReachedTier } from './quests.js';
import type { StreakEvent } from './streaks.js';

/** A quest as announced: the QuestProgress shape of the read APIs, times as ISO strings. */
export interface AnnouncedQuest {
  id: string;
  title: string;
  description: string;
  /** The next tier's points (the last tier's once every tier is reached). */
  points: number;
  progress: number;
  target: number;
  status: 'in_progress' | 'completed';
  completedAt: string | null;
  /** The period of a repeating quest (`2026-11-25`, `2026-W48`, `2026-11`); null for a one-time one. */
  period: string | null;
  /** When a repeating quest starts afresh; null for a one-time one. */
  resetsAt: string | null;
  tiersReached: number;
  tiers: { target: number; points: number }[];
}

export interface PointsAwardedData {
  delta: number;
  /** The balance right after this award. */
  balance: number;
  questId: string | null;
  source: CreditSource;
}

export interface QuestCompletedData {
  quest: AnnouncedQuest;
  /** The tier reached (1-based); a one-tier quest's only one is 1. */
  tier: number;
}

export interface RankChangedData {
  /** `global`: the whole board; `team`: the fan board of `team`. */
  board: 'global' | 'team';
  team: string | null;
  rank: number;
  /** null when the user had no place on that board before this write. */
  previousRank: number | null;
}

export interface StreakData {
  streak: { id: string; title: string; period: 'day' | 'week' };
  /** The streak's length after the event (0 once lost). */
  current: number;
  best: number;
  /** streak_lost only: the length that was lost. */
  lost?: number;
}

/**
 * An event a user's write announces (docs/LIVE.md), before it is stored: the
 * type and its data (the outbox row's payload). It is written by the write
 * that caused it, in the same statement, so it exists exactly when that write
 * committed. The one other event, `account_deleted` (`{ userId }`, belonging
 * to no user, webhooks only), is written by the deleting transaction
 * (db/queries/events.ts recordAccountDeleted). The wire shape of all of them
 * is the LiveEvent schema (routers/live-schemas.ts).
 */
export type NewLiveEvent =
  | { type: 'points_awarded'; data: PointsAwardedData }
  | { type: 'quest_completed'; data: QuestCompletedData }
  | { type: 'rank_changed'; data: RankChangedData }
  | { type: 'streak_extended'; data: StreakData }
  | { type: 'streak_lost'; data: StreakData };

/** A ledger entry as announced: its delta, the balance after it and its source. */
export function pointsAwarded(credit: {
  delta: number;
  balanceAfter: number;
  source: CreditSource;
}): NewLiveEvent {
  return {
    type: 'points_awarded',
    data: {
      delta: credit.delta,
      balance: credit.balanceAfter,
      questId: credit.source.kind === 'quest' ? credit.source.questId : null,
      source: credit.source,
    },
  };
}

/**
 * A reached quest tier as announced. The write statement sets a completed
 * quest's `completedAt` to its own clock (db/queries/user-write/statement.ts).
 */
export function questCompleted(tier: ReachedTier): NewLiveEvent {
  return {
    type: 'quest_completed',
    data: {
      quest: announcedQuest({ instance: tier.instance, state: tier.state }),
      tier: tier.tierIndex + 1,
    },
  };
}

export function streakChanged(event: StreakEvent): NewLiveEvent {
  const { key, title, period } = event.streak.definition;
  const data: StreakData = {
    streak: { id: key, title, period },
    current: event.state.current,
    best: event.state.best,
  };
  return event.type === 'streak_lost'
    ? { type: 'streak_lost', data: { ...data, lost: event.length } }
    : { type: 'streak_extended', data };
}

export function announcedQuest({ instance, state }: QuestProgress): AnnouncedQuest {
  const { definition } = instance.quest;
  const tier = definition.tiers[Math.min(state.tiersReached, definition.tiers.length - 1)];
  return {
    id: definition.key,
    title: definition.title,
    description: definition.description,
    points: tier?.points ?? 0,
    progress: state.progress,
    target: state.target,
    status: state.status,
    completedAt: state.completedAt === null ? null : state.completedAt.toISOString(),
    period: instance.span?.id ?? null,
    resetsAt: instance.span ? instance.span.endsAt.toISOString() : null,
    tiersReached: state.tiersReached,
    tiers: definition.tiers.map(({ target, points }) => ({ target, points })),
  };
}
