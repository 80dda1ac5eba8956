import type { Kysely } from 'kysely';
import {
  ensureLeaderboardEntry,
  findRankedEntry,
  type RankedEntry,
} from '../../db/queries/leaderboard.js';
import { recordEvents } from '../../db/queries/events.js';
import { recentLedgerEntries, recordQuestSync } from '../../db/queries/points.js';
import { findUserState, lockUser, markOnboarded, saveProfile } from '../../db/queries/users.js';
import type { Database, LedgerRow, ProfileRow, UserRow } from '../../db/schema.js';
import { eventsOfQuestSync, type BoardRanks } from '../domain/events.js';
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
  options: { onboard: boolean },
): Promise<ProfileWrite & { firstOnboarding: boolean; questSync: QuestSyncResult | null }> {
  const locked = await lockUser(trx, userId);
  const state = await findUserState(trx, userId);
  const { next, changed } = applyProfilePatch(state.profile ?? EMPTY_PROFILE, patch);
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
    previousTeam: state.hasLeaderboardEntry ? (state.profile?.favoriteTeam ?? null) : undefined,
  });
  return { user, profile, points, firstOnboarding, questSync };
}

/**
 * Evaluates every quest, stores changed progress, awards newly completed ones,
 * and appends the events announcing them (with the user's rank moves) to the
 * outbox, all in the caller's transaction.
 */
async function syncQuests(
  trx: Kysely<Database>,
  userId: string,
  input: {
    state: QuestState;
    stored: ReadonlyMap<string, StoredQuest>;
    balanceBefore: number;
    transactionTime: Date;
    /** The favorite team the user's board entry had before this write; undefined: no entry. */
    previousTeam: string | null | undefined;
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
  const team = input.state.profile.favoriteTeam;
  const ranksBefore =
    awards.length > 0 && input.previousTeam !== undefined
      ? await boardRanks(trx, userId, input.previousTeam === team ? team : null)
      : { global: null, team: null };
  const points = await recordQuestSync(trx, userId, {
    balanceBefore: input.balanceBefore,
    awards,
    quests: plan.writes,
  });

  const completedIds = new Set(plan.newlyCompleted.map((quest) => quest.id));
  if (awards.length > 0) {
    const events = eventsOfQuestSync({
      completed: plan.quests.filter((view) => completedIds.has(view.quest.id)),
      balanceBefore: input.balanceBefore,
      ranksBefore,
      ranksAfter: await boardRanks(trx, userId, team),
    });
    await recordEvents(
      trx,
      userId,
      events.map((event) => ({ type: event.type, payload: event.data })),
    );
  }
  return {
    points,
    questSync: {
      pointsAwarded: awards.reduce((sum, award) => sum + award.delta, 0),
      completed: plan.quests.filter((view) => completedIds.has(view.quest.id)),
      quests: plan.quests,
    },
  };
}

/** The user's rank on the whole board and on their team's board, as this transaction sees them. */
async function boardRanks(
  trx: Kysely<Database>,
  userId: string,
  team: string | null,
): Promise<BoardRanks> {
  const global = await findRankedEntry(trx, userId);
  const onTeam = team === null ? undefined : await findRankedEntry(trx, userId, { team });
  return {
    global: global?.rank ?? null,
    team: team === null ? null : { name: team, rank: onTeam?.rank ?? null },
  };
}
