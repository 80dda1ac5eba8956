import { PROFILE_FIELDS } from '../../db/profile-fields.js';
import type { ProfileFields, StoredQuest } from '../../db/schema.js';
import { filledFieldCount } from './profile.js';

/** What a quest is evaluated from: the stored profile and whether the user onboarded. */
export interface QuestState {
  profile: ProfileFields;
  onboarded: boolean;
}

export interface QuestDefinition {
  id: string;
  title: string;
  description: string;
  points: number;
  target: number;
  /** Current progress toward `target`; the quest completes when it reaches it. */
  progress(state: QuestState): number;
}

const isSet = (field: keyof ProfileFields) => (state: QuestState) =>
  state.profile[field] === null ? 0 : 1;

/**
 * The active quests, in display order. Ids are stable: they appear in ledger
 * idempotency keys (`quest:<id>`), so renaming one would award it again.
 */
export const QUESTS: readonly QuestDefinition[] = Object.freeze([
  {
    id: 'welcome',
    title: 'Welcome aboard',
    description: 'Finish onboarding.',
    points: 100,
    target: 1,
    progress: (state) => (state.onboarded ? 1 : 0),
  },
  {
    id: 'claim_handle',
    title: 'Claim your handle',
    description: 'Pick a unique handle.',
    points: 25,
    target: 1,
    progress: isSet('handle'),
  },
  {
    id: 'pick_team',
    title: 'Pick your team',
    description: 'Set your favorite team.',
    points: 25,
    target: 1,
    progress: isSet('favoriteTeam'),
  },
  {
    id: 'name_rival',
    title: 'Name your rival',
    description: 'Set the rival team you love to beat (PATCH /api/user).',
    points: 25,
    target: 1,
    progress: isSet('rivalTeam'),
  },
  {
    id: 'complete_profile',
    title: 'Complete your profile',
    description: `Fill in all ${PROFILE_FIELDS.length} profile fields.`,
    points: 100,
    target: PROFILE_FIELDS.length,
    progress: (state) => filledFieldCount(state.profile),
  },
]);

/** The ledger idempotency key of a quest's award: unique per user in the database. */
export function questAwardKey(questId: string): string {
  return `quest:${questId}`;
}

export type { StoredQuest };

/** A quest with one user's state of it: what every quest list shows. */
export interface QuestProgress {
  quest: QuestDefinition;
  state: StoredQuest;
}

export interface QuestSyncPlan {
  /** Rows whose stored progress, target or status differ from the evaluation. */
  writes: StoredQuest[];
  /** Quests this sync completes: each earns its points once. */
  newlyCompleted: QuestDefinition[];
  /** Every active quest's state after the sync. */
  quests: QuestProgress[];
}

/**
 * Compares every quest's evaluation with what is stored. Completion is sticky:
 * a completed quest stays completed (and keeps its points) if the profile later
 * loses the field; its progress still shows the current value.
 */
export function planQuestSync(
  state: QuestState,
  stored: ReadonlyMap<string, StoredQuest>,
  now: Date,
): QuestSyncPlan {
  const plan: QuestSyncPlan = { writes: [], newlyCompleted: [], quests: [] };
  for (const quest of QUESTS) {
    const before = stored.get(quest.id);
    const progress = Math.min(quest.progress(state), quest.target);
    const wasCompleted = before?.status === 'completed';
    const completes = !wasCompleted && progress >= quest.target;
    const after: StoredQuest = {
      questId: quest.id,
      progress,
      target: quest.target,
      status: wasCompleted || completes ? 'completed' : 'in_progress',
      completedAt: before?.completedAt ?? (completes ? now : null),
    };
    if (
      !before ||
      before.progress !== after.progress ||
      before.target !== after.target ||
      before.status !== after.status
    ) {
      plan.writes.push(after);
    }
    if (completes) plan.newlyCompleted.push(quest);
    plan.quests.push({ quest, state: after });
  }
  return plan;
}

/**
 * Every active quest's state as a reader sees it, without writing anything.
 * Before onboarding nothing can be completed (onboarding is what awards
 * quests), so each shows its progress from the profile and `in_progress`.
 * After onboarding it is the stored state, which every write keeps in sync.
 */
export function questProgress(
  state: QuestState,
  stored: ReadonlyMap<string, StoredQuest>,
  now: Date,
): QuestProgress[] {
  if (state.onboarded) return planQuestSync(state, stored, now).quests;
  return QUESTS.map((quest) => ({
    quest,
    state: {
      questId: quest.id,
      progress: Math.min(quest.progress(state), quest.target),
      target: quest.target,
      status: 'in_progress',
      completedAt: null,
    },
  }));
}
