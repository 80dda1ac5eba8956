import type { Kysely } from 'kysely';
import { handleHistory, handleReservations } from '../../db/queries/handles.js';
import { findRankedEntry, findUserBoards, type RankedEntry } from '../../db/queries/leaderboard.js';
import { allLedgerEntries, findBalance, recentLedgerEntries } from '../../db/queries/points.js';
import { activityOf, type ActivityEntry } from '../../db/queries/activity.js';
import { findUserQuests, findUserStreaks } from '../../db/queries/quests.js';
import { findProfile, findUser } from '../../db/queries/users.js';
import type {
  Database,
  HandleHistoryRow,
  LedgerRow,
  ProfileRow,
  UserRow,
} from '../../db/schema.js';
import type { Catalog } from '../domain/catalog.js';
import { encodeLedgerCursor } from '../domain/cursor.js';
import { currentPeriods } from '../domain/periods.js';
import { EMPTY_PROFILE } from '../domain/profile.js';
import { questProgress } from '../domain/quests.js';
import { streakViews, type StreakView } from '../domain/streaks.js';
import { UserGoneError } from '../app-error.js';
import { toPage, type Page } from './page.js';
import { readSnapshot } from './snapshot.js';
import type { QuestProgressView } from './profile.js';

/** The caller's reads: who they are, their ledger, their quests. No writes. */

export interface CurrentUser {
  user: UserRow;
  profile: ProfileRow | undefined;
  points: number;
}

async function requireUser(db: Kysely<Database>, userId: string): Promise<UserRow> {
  const user = await findUser(db, userId);
  if (!user) throw new UserGoneError();
  return user;
}

/** GET /api/user: the user, profile and balance from one snapshot. */
export function getCurrentUser(db: Kysely<Database>, userId: string): Promise<CurrentUser> {
  return readSnapshot(db, async (trx) => {
    const user = await requireUser(trx, userId);
    const profile = await findProfile(trx, userId);
    const points = await findBalance(trx, userId);
    return { user, profile, points };
  });
}

/** GET /api/user/points: one page of the ledger, newest first. */
export async function getPointsHistory(
  db: Kysely<Database>,
  userId: string,
  query: { limit: number; beforeId?: string | undefined },
): Promise<Page<LedgerRow>> {
  const rows = await recentLedgerEntries(db, userId, query.limit + 1, query.beforeId);
  return toPage(rows, query.limit, (last) => encodeLedgerCursor(String(last.id)));
}

export interface GameProgress {
  quests: QuestProgressView[];
  streaks: StreakView[];
}

/**
 * GET /api/user/quests: every active quest in the period holding `now`, with
 * the caller's progress, and every streak. Before onboarding, profile goals
 * show their progress from the profile (nothing is awarded for them yet).
 */
export function getQuests(
  db: Kysely<Database>,
  catalog: Catalog,
  userId: string,
  now: Date,
): Promise<GameProgress> {
  return readSnapshot(db, (trx) => gameProgress(trx, catalog, userId, now));
}

/** getQuests inside a snapshot the caller holds (the admin's fan page reads it with the rest). */
export async function gameProgress(
  db: Kysely<Database>,
  catalog: Catalog,
  userId: string,
  now: Date,
): Promise<GameProgress> {
  const user = await requireUser(db, userId);
  const profile = await findProfile(db, userId);
  const stored = await findUserQuests(db, userId, currentPeriods(now));
  const quests = questProgress(
    catalog,
    { profile: profile ?? EMPTY_PROFILE, onboarded: user.onboardedAt !== null },
    stored,
    now,
  );
  return { quests, streaks: streakViews(catalog, await findUserStreaks(db, userId), now) };
}

export interface AccountExport {
  exportedAt: Date;
  user: UserRow;
  profile: ProfileRow | undefined;
  points: number;
  handleHistory: HandleHistoryRow[];
  handleReservations: { handleKey: string; reservedUntil: Date }[];
  ledger: LedgerRow[];
  quests: QuestProgressView[];
  streaks: StreakView[];
  /** Every event other services recorded for the caller. */
  activity: ActivityEntry[];
  /** The caller's entries on every board (all-time and seasons) with their ranks now. */
  boards: { board: string; entry: RankedEntry }[];
}

/**
 * GET /api/user/export: everything the service holds about the caller, from
 * one snapshot (docs/ACCOUNT.md lists what and why).
 */
export function exportAccount(
  db: Kysely<Database>,
  catalog: Catalog,
  userId: string,
  exportedAt: Date,
): Promise<AccountExport> {
  return readSnapshot(db, async (trx) => {
    const user = await requireUser(trx, userId);
    const profile = await findProfile(trx, userId);
    const points = await findBalance(trx, userId);
    const game = await gameProgress(trx, catalog, userId, exportedAt);
    return {
      exportedAt,
      user,
      profile,
      points,
      handleHistory: await handleHistory(trx, userId),
      handleReservations: await handleReservations(trx, userId),
      ledger: await allLedgerEntries(trx, userId),
      ...game,
      activity: await activityOf(trx, userId),
      boards: await boardEntries(trx, userId),
    };
  });
}

async function boardEntries(
  db: Kysely<Database>,
  userId: string,
): Promise<{ board: string; entry: RankedEntry }[]> {
  const boards = await findUserBoards(db, userId);
  const entries = [];
  for (const board of boards) {
    const entry = await findRankedEntry(db, userId, { board });
    if (entry) entries.push({ board, entry });
  }
  return entries;
}
