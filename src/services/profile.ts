import type { Kysely } from 'kysely';
import { findRankedEntry, type RankedEntry } from '../../db/queries/leaderboard.js';
import { recentLedgerEntries } from '../../db/queries/points.js';
import {
  applyUserWrite,
  readUserState,
  stateAfterWrite,
  type BoardWrite,
  type HandleMove,
  type LedgerCredit,
  type UserState,
  type UserWritePlan,
} from '../../db/queries/user-write.js';
import type { Database, LedgerRow, ProfileRow, UserRow } from '../../db/schema.js';
import { ALL_TIME_BOARD, writeBoards } from '../domain/boards.js';
import { eventsOfQuestSync } from '../domain/events.js';
import { applyProfilePatch, EMPTY_PROFILE, type ProfilePatch } from '../domain/profile.js';
import {
  planQuestSync,
  questAwardKey,
  type QuestDefinition,
  type QuestProgress,
  type StoredQuest,
} from '../domain/quests.js';
import {
  classifyHandleChange,
  handleChangeBlockedUntil,
  handleCooldownError,
  handleKey,
  handleTakenError,
  type HandlePolicy,
} from '../domain/handles.js';
import { AppError, UserGoneError } from '../app-error.js';
import { boardsKey, type UserStateCache } from './state-cache.js';

/** How many ledger entries a response carries (docs/CONTRACT.md, Shapes). */
export const POINTS_HISTORY_LIMIT = 20;

/**
 * How many times a write is computed and tried before answering 503: each
 * try that loses the race to another write of the same user reads again.
 * Between tries it waits a random 0–2^try ms, so writers that collided spread
 * out instead of colliding again (docs/DECISIONS.md).
 */
export const WRITE_ATTEMPTS = 8;

/** What the write paths need from the app. */
export interface WriteDeps {
  db: Kysely<Database>;
  /** Decides which season boards an award credits (tests move it). */
  clock: () => Date;
  config: { handles: HandlePolicy };
  /** The state each user's last write on this instance left (src/services/state-cache.ts). */
  userStates: UserStateCache;
}

/** The domain's QuestProgress, under the name the routers' DTO mapping uses. */
export type QuestProgressView = QuestProgress;

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
 * quests and awards their points in the same statement.
 */
export async function updateProfile(
  deps: WriteDeps,
  userId: string,
  patch: ProfilePatch,
): Promise<ProfileWrite> {
  const { written } = await writeUser(deps, userId, patch, { onboard: false, historyLimit: 0 });
  return { user: written.user, profile: written.profile, points: written.points };
}

/**
 * POST /api/user/profile: applies the fields, marks the user onboarded, syncs
 * every quest and makes sure the leaderboard entry exists, in one statement.
 * Repeating it awards nothing twice.
 */
export async function onboard(
  deps: WriteDeps,
  userId: string,
  patch: ProfilePatch,
): Promise<OnboardingResult> {
  const { written, history, rank } = await writeUser(deps, userId, patch, {
    onboard: true,
    historyLimit: POINTS_HISTORY_LIMIT,
  });
  // A repeat that changed nothing sent no write: one read answers both.
  const leaderboardEntry =
    rank === undefined
      ? await findRankedEntry(deps.db, userId)
      : {
          userId,
          handle: written.profile?.handle ?? null,
          name: written.profile?.name ?? null,
          profileUrl: written.profile?.profileUrl ?? null,
          points: written.points,
          rank,
        };
  if (!leaderboardEntry) throw new UserGoneError();
  return {
    ...written,
    questSync: written.questSync!,
    leaderboardEntry,
    pointsHistory: history ?? (await recentLedgerEntries(deps.db, userId, POINTS_HISTORY_LIMIT)),
  };
}

interface Written extends ProfileWrite {
  firstOnboarding: boolean;
  questSync: QuestSyncResult | null;
}

/** A plan for the write and what the response reports once it is applied. */
interface Planned {
  plan: UserWritePlan;
  /** False when the plan changes nothing: no statement is sent. */
  writes: boolean;
  written: Omit<Written, 'user' | 'profile'>;
}

/**
 * Plans from the user's state and applies the plan in one statement guarded
 * by the state's version (db/queries/user-write.ts). The state is this
 * instance's last write of the user when it has one (unconfirmed: it may
 * only feed a guarded write; if it is stale, the write returns the stored
 * state and the next try plans from that), else a read. The user's writes on
 * this instance take turns (UserStateCache.inTurn), so the next one plans
 * from the state this one leaves.
 */
function writeUser(
  deps: WriteDeps,
  userId: string,
  patch: ProfilePatch,
  options: { onboard: boolean; historyLimit: number },
): Promise<WriteOutcome> {
  return deps.userStates.inTurn(userId, () => tryWrites(deps, userId, patch, options));
}

interface WriteOutcome {
  written: Written;
  history: LedgerRow[] | undefined;
  rank: number | undefined;
}

async function tryWrites(
  deps: WriteDeps,
  userId: string,
  patch: ProfilePatch,
  options: { onboard: boolean; historyLimit: number },
): Promise<WriteOutcome> {
  let source: { state: UserState; boards: string; confirmed: boolean } | undefined;
  for (let attempt = 1, first = true; ; first = false) {
    const boards = writeBoards(deps.clock());
    const key = boardsKey(boards);
    const cached = first ? deps.userStates.get(userId, key) : undefined;
    if (cached) source = { state: cached, boards: key, confirmed: false };
    if (source?.boards !== key) {
      const read = await readUserState(deps.db, userId, boards);
      if (!read) throw new UserGoneError();
      source = { state: read, boards: key, confirmed: true };
    }
    const { state, confirmed } = source;
    source = undefined;
    let planned: Planned;
    try {
      planned = planWrite(state, patch, { ...options, boards, handles: deps.config.handles });
    } catch (error) {
      // Refused on a cached state: refuse it only on the stored one.
      if (confirmed) throw error;
      continue;
    }
    const { plan, writes, written } = planned;
    // Planned on a cached state: if that is stale, the write returns the stored one.
    if (!confirmed) plan.returnStateOnBoards = boards;
    if (!writes) {
      // Nothing to write: an answer only the stored state may give.
      if (!confirmed) continue;
      return {
        written: { ...written, user: state.user, profile: state.profile },
        history: undefined,
        rank: undefined,
      };
    }
    const result = await applyUserWrite(deps.db, plan);
    if (result.ok) {
      deps.userStates.set(userId, key, stateAfterWrite(state, plan, result));
      const completedAt = result.writtenAt;
      return {
        written: {
          ...written,
          user: result.user,
          profile: result.profile ?? state.profile,
          // Completion times are the statement's clock, the one the rows carry.
          questSync: written.questSync && stampCompletions(written.questSync, completedAt),
        },
        history: options.historyLimit > 0 ? result.history : undefined,
        rank: result.rank,
      };
    }
    deps.userStates.delete(userId);
    if (result.conflict === 'handle_taken') throw handleTakenError(plan.profile?.handle ?? '');
    if (result.conflict === 'gone') throw new UserGoneError();
    if (confirmed) {
      // A lost race: back off, then try again.
      if (attempt >= WRITE_ATTEMPTS) {
        throw new AppError(
          'UNAVAILABLE',
          'Too many simultaneous writes to this user; retry shortly',
          { retryAfterSeconds: 1 },
        );
      }
      await sleep(Math.random() * 2 ** attempt);
      attempt += 1;
    } // A cached state that had gone stale lost no race: try again at once,
    // from the state the write found, unless it is no newer than the plan's
    // (the write waited for one that committed after the statement began).
    if (result.current && result.current.user.version !== state.user.version) {
      source = { state: result.current, boards: key, confirmed: true };
    }
  }
}

/** Everything a write changes, from the state it read: plain computation, no I/O. */
function planWrite(
  state: UserState,
  patch: ProfilePatch,
  options: {
    onboard: boolean;
    historyLimit: number;
    boards: readonly string[];
    handles: HandlePolicy;
  },
): Planned {
  const current = state.profile ?? EMPTY_PROFILE;
  const { next, changed } = applyProfilePatch(current, patch);
  const firstOnboarding = options.onboard && state.user.onboardedAt === null;
  const onboarded = state.user.onboardedAt !== null || options.onboard;
  const plan: UserWritePlan = {
    userId: state.user.id,
    expectedVersion: state.user.version,
    onboard: firstOnboarding,
    profile: changed.length > 0 ? next : undefined,
    boards: [],
    team: { favoriteTeam: next.favoriteTeam, changed: changed.includes('favoriteTeam') },
    quests: [],
    credits: [],
    historyLimit: options.historyLimit,
    rank: options.onboard,
    handle: planHandleMove(state, current.handle, next.handle, options.handles),
  };
  if (!onboarded) {
    return {
      plan,
      writes: plan.profile !== undefined,
      written: { points: 0, firstOnboarding, questSync: null },
    };
  }

  // Completion times in the response become the statement's clock once written.
  const sync = planQuestSync({ profile: next, onboarded: true }, state.quests, new Date());
  let balance = state.points;
  const credits: LedgerCredit[] = sync.newlyCompleted.map((quest) => {
    balance += quest.points;
    return {
      key: questAwardKey(quest.id),
      delta: quest.points,
      reason: 'quest_completed',
      questId: quest.id,
      balanceAfter: balance,
    };
  });
  plan.quests = sync.writes;
  plan.credits = credits;
  plan.boards = boardWrites(state, options.boards, balance - state.points, plan.team.changed);
  const completedIds = new Set(sync.newlyCompleted.map((quest) => quest.id));
  const completed = sync.quests.filter((view) => completedIds.has(view.quest.id));
  // Announced by the same statement: the completions and awards, then the rank moves.
  plan.events = eventsOfQuestSync({ completed, balanceBefore: state.points }).map((event) => ({
    type: event.type,
    payload: event.data,
  }));
  plan.announceRanks = credits.length > 0;
  return {
    plan,
    writes:
      plan.onboard ||
      plan.profile !== undefined ||
      plan.boards.length > 0 ||
      plan.quests.length > 0,
    written: {
      points: balance,
      firstOnboarding,
      questSync: {
        pointsAwarded: balance - state.points,
        completed,
        quests: sync.quests,
      },
    },
  };
}

/**
 * The board entries a write stores: the all-time entry whenever it is
 * missing or its balance or team changes; each season board (`boards` after
 * the first) when the write awards points, or when its entry exists and the
 * team changes. The entries' team key follows favoriteTeam, so fan boards
 * never read profiles.
 */
function boardWrites(
  state: UserState,
  boards: readonly string[],
  awarded: number,
  teamChanged: boolean,
): BoardWrite[] {
  const writes: BoardWrite[] = [];
  for (const board of boards) {
    const before = state.entries.get(board);
    const allTime = board === ALL_TIME_BOARD;
    if (awarded > 0 || (before && teamChanged) || (allTime && !before)) {
      writes.push({ board, before, points: (before?.points ?? 0) + awarded });
    }
  }
  return writes;
}

/**
 * The handle part of a write (docs/ACCOUNT.md): the cooldown is checked
 * against the last change read with the state; the claim, the reservation of
 * the old handle and the history row are written by the write's statement.
 */
function planHandleMove(
  state: UserState,
  from: string | null,
  to: string | null,
  policy: HandlePolicy,
): HandleMove | undefined {
  const kind = classifyHandleChange(from, to);
  if (kind === 'none') return undefined;
  if (kind === 'change') {
    const blockedUntil = handleChangeBlockedUntil(
      state.lastHandleChangeAt,
      policy.cooldownDays,
      new Date(),
    );
    if (blockedUntil) throw handleCooldownError(blockedUntil);
  }
  return {
    claimKey: kind === 'recase' ? undefined : handleKey(to!),
    release:
      kind === 'change' ? { key: handleKey(from!), reserveDays: policy.reserveDays } : undefined,
    history: { oldHandle: from, newHandle: to!, kind },
  };
}

/** The quests this write completed carry the time the statement stored. */
function stampCompletions(sync: QuestSyncResult, at: Date): QuestSyncResult {
  const completedIds = new Set(sync.completed.map((view) => view.quest.id));
  const stamp = (view: QuestProgressView): QuestProgressView =>
    completedIds.has(view.quest.id) ? { ...view, state: { ...view.state, completedAt: at } } : view;
  return { ...sync, completed: sync.completed.map(stamp), quests: sync.quests.map(stamp) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
