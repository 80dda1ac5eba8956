import type { Kysely } from 'kysely';
import {
  ensureLeaderboardEntry,
  findRankedEntry,
  type RankedEntry,
} from '../../db/queries/leaderboard.js';
import {
  claimHandle,
  lastHandleChangeAt,
  recordHandleChange,
  releaseHandle,
} from '../../db/queries/handles.js';
import { recentLedgerEntries, recordQuestSync } from '../../db/queries/points.js';
import { findUserState, lockUser, markOnboarded, saveProfile } from '../../db/queries/users.js';
import type { Database, LedgerRow, ProfileRow, UserRow } from '../../db/schema.js';
import {
  classifyHandleChange,
  handleChangeBlockedUntil,
  handleCooldownError,
  handleKey,
  handleTakenError,
  type HandlePolicy,
} from '../domain/handles.js';
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
  handles: HandlePolicy,
): Promise<ProfileWrite> {
  return db.transaction().execute(async (trx) => {
    const write = await writeProfile(trx, userId, patch, { onboard: false, handles });
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
  handles: HandlePolicy,
): Promise<OnboardingResult> {
  return db.transaction().execute(async (trx) => {
    const write = await writeProfile(trx, userId, patch, { onboard: true, handles });
    // One after the other: a transaction is one connection, and pg queues
    // (and warns about) concurrent queries on it.
    const leaderboardEntry = await findRankedEntry(trx, userId);
    const pointsHistory = await recentLedgerEntries(trx, userId, POINTS_HISTORY_LIMIT);
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
  options: { onboard: boolean; handles: HandlePolicy },
): Promise<ProfileWrite & { firstOnboarding: boolean; questSync: QuestSyncResult | null }> {
  const locked = await lockUser(trx, userId);
  const state = await findUserState(trx, userId);
  const current = state.profile ?? EMPTY_PROFILE;
  const { next, changed } = applyProfilePatch(current, patch);
  if (changed.includes('handle')) {
    await moveHandle(trx, userId, current.handle, next.handle!, {
      policy: options.handles,
      now: locked.transactionTime,
    });
  }
  const profile = changed.length > 0 ? await saveProfile(trx, userId, next) : state.profile;
  const user = options.onboard ? await markOnboarded(trx, locked.user) : locked.user;
  const firstOnboarding = options.onboard && locked.user.onboardedAt === null;

  if (user.onboardedAt === null) {
    return { user, profile, points: 0, firstOnboarding, questSync: null };
  }
  // The entry's team key follows favoriteTeam, so fan boards never read profiles.
  if ((options.onboard && !state.hasLeaderboardEntry) || changed.includes('favoriteTeam')) {
    await ensureLeaderboardEntry(trx, userId, next.favoriteTeam);
  }
  const { questSync, points } = await syncQuests(trx, userId, {
    state: { profile: next, onboarded: true },
    stored: state.quests,
    balanceBefore: state.points,
    transactionTime: locked.transactionTime,
  });
  return { user, profile, points, firstOnboarding, questSync };
}

/**
 * The handle part of a write: the cooldown, the claim on the new handle (the
 * database decides races and reservations), the reservation of the old one,
 * and the history row. Runs under the user's row lock, so one user's changes
 * are serialised and the cooldown sees the previous change.
 */
async function moveHandle(
  trx: Kysely<Database>,
  userId: string,
  from: string | null,
  to: string,
  options: { policy: HandlePolicy; now: Date },
): Promise<void> {
  const kind = classifyHandleChange(from, to);
  if (kind === 'none') return;
  if (kind === 'change') {
    const blockedUntil = handleChangeBlockedUntil(
      await lastHandleChangeAt(trx, userId),
      options.policy.cooldownDays,
      options.now,
    );
    if (blockedUntil) throw handleCooldownError(blockedUntil);
  }
  if (kind === 'first' || kind === 'change') {
    if (!(await claimHandle(trx, userId, handleKey(to)))) throw handleTakenError(to);
  }
  if (kind === 'change') {
    await releaseHandle(trx, userId, handleKey(from!), options.policy.reserveDays);
  }
  await recordHandleChange(trx, userId, { oldHandle: from, newHandle: to, kind });
}

/** Evaluates every quest, stores changed progress, and awards newly completed ones. */
async function syncQuests(
  trx: Kysely<Database>,
  userId: string,
  input: {
    state: QuestState;
    stored: ReadonlyMap<string, StoredQuest>;
    balanceBefore: number;
    transactionTime: Date;
  },
): Promise<{ questSync: QuestSyncResult; points: number }> {
  // Completion times are the transaction's clock, the one the rows are written with.
  const plan = planQuestSync(input.state, input.stored, input.transactionTime);
  const awards = plan.newlyCompleted.map((quest) => ({
    key: questAwardKey(quest.id),
    delta: quest.points,
    reason: 'quest_completed',
    questId: quest.id,
  }));
  const points = await recordQuestSync(trx, userId, {
    balanceBefore: input.balanceBefore,
    awards,
    quests: plan.writes,
  });

  const completedIds = new Set(plan.newlyCompleted.map((quest) => quest.id));
  return {
    points,
    questSync: {
      pointsAwarded: awards.reduce((sum, award) => sum + award.delta, 0),
      completed: plan.quests.filter((view) => completedIds.has(view.quest.id)),
      quests: plan.quests,
    },
  };
}
