import type { Kysely } from 'kysely';
import { findRankedEntry, type RankedEntry } from '../../db/queries/leaderboard.js';
import { recentLedgerEntries, seasonPointsSince } from '../../db/queries/points.js';
import type {
  HandleMove,
  StateScope,
  UserState,
  UserWritePlan,
} from '../../db/queries/user-write/index.js';
import type { Database, LedgerRow, ProfileRow, UserRow } from '../../db/schema.js';
import type { CompiledStatements } from '../../db/statements.js';
import { ALL_TIME_BOARD, seasonBoards, writeBoards } from '../domain/boards.js';
import type { Catalog } from '../domain/catalog.js';
import { pointsAwarded, questCompleted, type NewLiveEvent } from '../domain/events.js';
import { pointsLimitError, pointsMove, withinPointsLimit } from '../domain/ledger.js';
import { pointsAndBoards } from '../domain/placement.js';
import { currentPeriods } from '../domain/periods.js';
import { applyProfilePatch, EMPTY_PROFILE, type ProfilePatch } from '../domain/profile.js';
import { planQuestSync, questAward, type QuestProgress } from '../domain/quests.js';
import { seasonAt } from '../domain/seasons.js';
import {
  classifyHandleChange,
  handleChangeBlockedUntil,
  handleCooldownError,
  handleKey,
  handleTakenError,
  type HandlePolicy,
} from '../domain/handles.js';
import { UserGoneError } from '../app-error.js';
import { writeFan } from './fan-writes.js';
import type { UserStateCache } from './state-cache.js';

/** How many ledger entries a response carries (docs/CONTRACT.md, Shapes). */
export const POINTS_HISTORY_LIMIT = 20;

/** What the write paths need from the app. */
export interface WriteDeps {
  db: Kysely<Database>;
  /** The database handle's compiled statements (db/statements.ts). */
  statements: CompiledStatements;
  /** Decides which season boards an award credits (tests move it). */
  clock: () => Date;
  config: { handles: HandlePolicy };
  /** The state each user's last write on this instance left (src/services/state-cache.ts). */
  userStates: UserStateCache;
  /** The game's definitions in force (src/services/catalog.ts). */
  catalog: { current(): Promise<Catalog> };
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
  // A repeat that changed nothing sent no write: one read answers both. A
  // banned fan's entry is hidden from everyone else; they see where they stand.
  const leaderboardEntry =
    rank === undefined
      ? await findRankedEntry(deps.db, userId, {}, { hidden: true })
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

interface WriteOutcome {
  written: Written;
  history: LedgerRow[] | undefined;
  rank: number | undefined;
}

/**
 * Plans from the user's state and applies the plan in one statement guarded
 * by the state's version, through the write engine (src/services/fan-writes.ts),
 * which plans again when another write landed in between, from the state this
 * instance's last write of the user left when it has one. The user's writes
 * on this instance take turns (UserStateCache.inTurn), so each plans from
 * the state the one before left, and only writes on other instances race in
 * the database.
 */
function writeUser(
  deps: WriteDeps,
  userId: string,
  patch: ProfilePatch,
  options: { onboard: boolean; historyLimit: number },
): Promise<WriteOutcome> {
  return deps.userStates.inTurn(userId, async () => {
    const catalog = await deps.catalog.current();
    const scope = writeScope(deps.clock());
    return writeFan<WriteOutcome>(
      deps,
      {
        userId,
        scope,
        gone: () => {
          throw new UserGoneError();
        },
        handleTaken: () => {
          throw handleTakenError(patch.handle ?? '');
        },
        plan: async (state) => {
          const now = deps.clock();
          const opening = await openingPoints(deps, state, options.onboard, now);
          const { plan, writes, written } = planWrite(state, patch, {
            ...options,
            catalog,
            boards: scope.boards,
            handles: deps.config.handles,
            now,
            opening,
          });
          if (!writes) {
            const done = { ...written, user: state.user, profile: state.profile };
            return { answer: { written: done, history: undefined, rank: undefined } };
          }
          return {
            write: plan,
            written: (result) => ({
              written: {
                ...written,
                user: result.user,
                profile: result.profile ?? state.profile,
                // Completion times are the statement's clock, the one the rows carry.
                questSync:
                  written.questSync && stampCompletions(written.questSync, result.writtenAt),
              },
              history: options.historyLimit > 0 ? result.history : undefined,
              rank: result.rank,
            }),
          };
        },
      },
      { writer: 'profile', cached: true },
    );
  });
}

/**
 * What a profile write reads: the all-time board and the season boards of
 * `now`, and the quests of the periods holding `now` (a write reports every
 * quest as it stands in them).
 */
export function writeScope(now: Date): StateScope {
  return { boards: writeBoards(now), periods: currentPeriods(now) };
}

/** A plan for the write and what the response reports once it is applied. */
interface Planned {
  plan: UserWritePlan;
  /** False when the plan changes nothing: no statement is sent. */
  writes: boolean;
  written: Omit<Written, 'user' | 'profile'>;
}

/**
 * What the entries a first onboarding creates start from: the points the
 * user earned before it (from other services' events), on the all-time board
 * and, for what was earned in the current week and month, on theirs
 * (docs/ACTIVITY.md, "Before onboarding"). Nothing for anyone else.
 */
async function openingPoints(
  deps: WriteDeps,
  state: UserState,
  onboard: boolean,
  now: Date,
): Promise<Map<string, number> | undefined> {
  if (!onboard || state.user.onboardedAt !== null || state.points === 0) return undefined;
  const seasons = seasonBoards(now);
  const [week, month] = await seasonPointsSince(deps.db, state.user.id, [
    seasonAt('week', now).startsAt,
    seasonAt('month', now).startsAt,
  ]);
  return new Map([
    [ALL_TIME_BOARD, state.points],
    [seasons.week, week ?? 0],
    [seasons.month, month ?? 0],
  ]);
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
    catalog: Catalog;
    now: Date;
    opening: ReadonlyMap<string, number> | undefined;
  },
): Planned {
  const current = state.profile ?? EMPTY_PROFILE;
  const { next, changed } = applyProfilePatch(current, patch);
  const firstOnboarding = options.onboard && state.user.onboardedAt === null;
  const onboarded = state.user.onboardedAt !== null || options.onboard;
  const plan: UserWritePlan = {
    userId: state.user.id,
    expectedVersion: state.user.version,
    at: options.now,
    onboard: firstOnboarding,
    profile: changed.length > 0 ? next : undefined,
    boards: [],
    team: { favoriteTeam: next.favoriteTeam, changed: changed.includes('favoriteTeam') },
    quests: [],
    credits: [],
    historyLimit: options.historyLimit,
    rank: options.onboard,
    handle: planHandleMove(state, current.handle, next.handle, options.handles, options.now),
  };
  if (!onboarded) {
    return {
      plan,
      writes: plan.profile !== undefined,
      written: { points: state.points, firstOnboarding, questSync: null },
    };
  }

  // Completion times in the response become the statement's clock once written.
  const sync = planQuestSync(
    options.catalog,
    { profile: next, onboarded: true },
    state.quests,
    options.now,
  );
  // Each reached tier is worth its points on every board the write credits.
  const awards = sync.reached.map(questAward).filter((award) => award.delta !== 0);
  const { credits, boards, balance } = pointsAndBoards(
    state,
    awards.map((award) => pointsMove(award, options.boards)),
    { teamBoards: options.boards, teamChanged: plan.team.changed, opening: options.opening },
  );
  if (!withinPointsLimit([balance, ...boards.map((board) => board.points)])) {
    throw pointsLimitError('The quests this write completes');
  }
  plan.quests = sync.writes;
  plan.credits = credits;
  plan.boards = boards;
  // Announced by the same statement: each completion and its award, then the rank moves.
  const events: NewLiveEvent[] = [];
  for (const tier of sync.reached) {
    events.push(questCompleted(tier));
    const credit = credits.find((entry) => entry.key === tier.key);
    if (credit) events.push(pointsAwarded({ ...credit, source: questAward(tier).source }));
  }
  plan.events = events.map((event) => ({ type: event.type, payload: event.data }));
  plan.announceRanks = credits.length > 0;
  const reachedKeys = new Set(sync.reached.map((tier) => questViewKey(tier.instance, tier.state)));
  const completed = sync.quests.filter((view) =>
    reachedKeys.has(questViewKey(view.instance, view.state)),
  );
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

/** A quest view's identity: its quest and period. */
function questViewKey(instance: QuestProgress['instance'], state: QuestProgress['state']): string {
  return `${instance.quest.definition.key}@${state.period}`;
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
  now: Date,
): HandleMove | undefined {
  const kind = classifyHandleChange(from, to);
  if (kind === 'none') return undefined;
  if (kind === 'change') {
    const blockedUntil = handleChangeBlockedUntil(
      state.lastHandleChangeAt,
      policy.cooldownDays,
      now,
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
  const completed = new Set(
    sync.completed
      .filter((view) => view.state.status === 'completed')
      .map((view) => questViewKey(view.instance, view.state)),
  );
  const stamp = (view: QuestProgressView): QuestProgressView =>
    completed.has(questViewKey(view.instance, view.state)) && view.state.completedAt !== null
      ? { ...view, state: { ...view.state, completedAt: at } }
      : view;
  return { ...sync, completed: sync.completed.map(stamp), quests: sync.quests.map(stamp) };
}
