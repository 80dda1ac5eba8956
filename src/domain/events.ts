import type { QuestDefinition, StoredQuest } from './quests.js';

/** A quest as announced: the QuestProgress shape of the read APIs, times as ISO strings. */
export interface AnnouncedQuest {
  id: string;
  title: string;
  description: string;
  points: number;
  progress: number;
  target: number;
  status: 'in_progress' | 'completed';
  completedAt: string | null;
}

export interface PointsAwardedData {
  delta: number;
  /** The balance right after this award. */
  balance: number;
  questId: string | null;
}

export interface QuestCompletedData {
  quest: AnnouncedQuest;
}

export interface RankChangedData {
  /** `global`: the whole board; `team`: the fan board of `team`. */
  board: 'global' | 'team';
  team: string | null;
  rank: number;
  /** null when the user had no place on that board before this write. */
  previousRank: number | null;
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
  | { type: 'rank_changed'; data: RankChangedData };

/**
 * The events of one quest sync, in the order they happened: for each newly
 * completed quest its completion, then its award with the balance after it.
 * The write statement adds the user's own rank moves after them
 * (db/queries/user-write/); users pushed down a place by this write are not
 * told (docs/LIVE.md). `quest.completedAt` is replaced by the statement's clock.
 */
export function eventsOfQuestSync(input: {
  completed: readonly { quest: QuestDefinition; state: StoredQuest }[];
  balanceBefore: number;
}): NewLiveEvent[] {
  const events: NewLiveEvent[] = [];
  let balance = input.balanceBefore;
  for (const { quest, state } of input.completed) {
    balance += quest.points;
    events.push({ type: 'quest_completed', data: { quest: announcedQuest(quest, state) } });
    events.push({
      type: 'points_awarded',
      data: { delta: quest.points, balance, questId: quest.id },
    });
  }
  return events;
}

function announcedQuest(quest: QuestDefinition, state: StoredQuest): AnnouncedQuest {
  return {
    id: quest.id,
    title: quest.title,
    description: quest.description,
    points: quest.points,
    progress: state.progress,
    target: state.target,
    status: state.status,
    completedAt: state.completedAt === null ? null : state.completedAt.toISOString(),
  };
}
