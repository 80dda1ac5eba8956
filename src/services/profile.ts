import type { Kysely } from 'kysely';
import {
  ensureLeaderboardEntry,
  findRankedEntry,
  type RankedEntry,
} from '../../db/queries/leaderboard.js';
import { appendAwards, findBalance, recentLedgerEntries } from '../../db/queries/points.js';
import { findUserQuests, saveUserQuests } from '../../db/queries/quests.js';
import { lockUser, markOnboarded, saveProfile } from '../../db/queries/users.js';
import type { Database, LedgerRow, ProfileRow, UserRow } from '../../db/schema.js';
import { applyProfilePatch, EMPTY_PROFILE, type ProfilePatch } from '../domain/profile.js';
import {
  planQuestSync,
  questAwardKey,
  type QuestDefinition,
  type QuestState,
  type StoredQuest,
} from '../domain/quests.js';

/** How many ledger entries a response carries (DESIGN §4). */
export const POINTS_HISTORY_LIMIT = 20;

export interface QuestProgressView {
  quest: QuestDefinition;
  state: StoredQuest;
}

export interface QuestSyncResult {
  pointsAwarded: number;
  completed: QuestProgressView[];
  quests: QuestProgressView[];
}

export interface ProfileWrite {
  user: UserRow;
  profile: ProfileRow | undefined;
  /** The user's balance after the write (0 before onboarding). */
  points: number;
}

export interface OnboardingResult extends ProfileWrite {
  /** True when this call onboarded the user (REST answers 201), false on a repeat. */
  firstOnboarding: boolean;
  leaderboardEntry: RankedEntry;
  pointsHistory: LedgerRow[];
  questSync: QuestSyncResult;
}

/**
 * PATCH /api/user: applies the fields; once the user has onboarded, syncs
 * quests and awards their points in the same transaction.
 */
export function updateProfile(
  db: Kysely<Database>,
  userId: string,
  patch: ProfilePatch,
): Promise<ProfileWrite> {
  return db.transaction().execute(async (trx) => {
    const write = await writeProfile(trx, userId, patch, { onboard: false });
    return { user: write.user, profile: write.profile, points: write.points };
  });
}

/**
 * POST /api/user/profile: applies the fields, marks the user onboarded, syncs
 * every quest and makes sure the leaderboard entry exists, in one transaction.
 * Repeating it awards nothing twice.
 */
export function onboard(
  db: Kysely<Database>,
  userId: string,
  patch: ProfilePatch,
): Promise<OnboardingResult> {
  return db.transaction().execute(async (trx) => {
    const write = await writeProfile(trx, userId, patch, { onboard: true });
    const [leaderboardEntry, pointsHistory] = await Promise.all([
      findRankedEntry(trx, userId),
      recentLedgerEntries(trx, userId, POINTS_HISTORY_LIMIT),
    ]);
    return {
      ...write,
      questSync: write.questSync!,
      leaderboardEntry: leaderboardEntry!,
      pointsHistory,
    };
  });
}

async function writeProfile(
  trx: Kysely<Database>,
  userId: string,
  patch: ProfilePatch,
  options: { onboard: boolean },
): Promise<ProfileWrite & { firstOnboarding: boolean; questSync: QuestSyncResult | null }> {
  const locked = await lockUser(trx, userId);
  const { next, changed } = applyProfilePatch(locked.profile ?? EMPTY_PROFILE, patch);
  const profile = changed.length > 0 ? await saveProfile(trx, userId, next) : locked.profile;
  const user = options.onboard ? await markOnboarded(trx, locked.user) : locked.user;
  const firstOnboarding = options.onboard && locked.user.onboardedAt === null;

  if (user.onboardedAt === null) {
    return { user, profile, points: 0, firstOnboarding, questSync: null };
  }
  // The entry's team key follows favoriteTeam, so fan boards never read profiles.
  if (options.onboard || changed.includes('favoriteTeam')) {
    await ensureLeaderboardEntry(trx, userId, next.favoriteTeam);
  }
  const { questSync, points } = await syncQuests(trx, userId, { profile: next, onboarded: true });
  return { user, profile, points, firstOnboarding, questSync };
}

/** Evaluates every quest, stores changed progress, and awards newly completed ones. */
async function syncQuests(
  trx: Kysely<Database>,
  userId: string,
  state: QuestState,
): Promise<{ questSync: QuestSyncResult; points: number }> {
  const stored = await findUserQuests(trx, userId);
  const plan = planQuestSync(state, stored, new Date());
  const ledger = await appendAwards(
    trx,
    userId,
    plan.newlyCompleted.map((quest) => ({
      key: questAwardKey(quest.id),
      delta: quest.points,
      reason: 'quest_completed',
      questId: quest.id,
    })),
  );
  await saveUserQuests(trx, userId, plan.writes);

  const completedIds = new Set(plan.newlyCompleted.map((quest) => quest.id));
  const points = ledger.at(-1)?.balanceAfter ?? (await findBalance(trx, userId));
  return {
    points,
    questSync: {
      pointsAwarded: ledger.reduce((sum, row) => sum + row.delta, 0),
      completed: plan.quests.filter((view) => completedIds.has(view.quest.id)),
      quests: plan.quests,
    },
  };
}
