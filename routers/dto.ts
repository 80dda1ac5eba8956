import type { z } from 'zod';
import type { RankedEntry } from '../db/queries/leaderboard.js';
import type { LedgerRow, ProfileFields, ProfileRow, UserRow } from '../db/schema.js';
import { PROFILE_FIELDS } from '../db/profile-fields.js';
import { announcedQuest } from '../src/domain/events.js';
import { creditSource } from '../src/domain/ledger.js';
import { EMPTY_PROFILE } from '../src/domain/profile.js';
import type { StreakView } from '../src/domain/streaks.js';
import { seasonOfBoard } from '../src/domain/seasons.js';
import type { AccountExport, GameProgress } from '../src/services/account.js';
import type { ArchivedEntry, AroundMe, BoardView } from '../src/services/leaderboard.js';
import type { Season, SeasonPeriod } from '../src/domain/seasons.js';
import type { Page } from '../src/services/page.js';
import type { QuestProgressView, QuestSyncResult } from '../src/services/profile.js';
import type {
  LeaderboardAroundMeSchema,
  LeaderboardEntrySchema,
  LeaderboardPageSchema,
  LeaderboardSeasonsSchema,
} from './leaderboard-schemas.js';
import type {
  PointsHistoryPageSchema,
  LedgerEntrySchema,
  QuestListSchema,
  QuestProgressSchema,
  QuestSyncSchema,
  StreakSchema,
} from './points-schemas.js';
import type { AccountExportSchema, UpdatedProfileSchema, UserSchema } from './profile-schemas.js';

/** Rows → response shapes. The only place that knows both sides. */

/** The success envelope every operation answers with; its schema is `success()` (schemas.ts). */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

function profileFields(profile: ProfileRow | undefined): ProfileFields {
  const source = profile ?? EMPTY_PROFILE;
  const fields = { ...EMPTY_PROFILE };
  for (const field of PROFILE_FIELDS) fields[field] = source[field];
  return fields;
}

const iso = (date: Date) => date.toISOString();
const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

export function toUser(
  user: UserRow,
  profile: ProfileRow | undefined,
  points: number,
): z.infer<typeof UserSchema> {
  const updatedAt =
    profile && profile.updatedAt > user.updatedAt ? profile.updatedAt : user.updatedAt;
  return {
    id: user.id,
    ...profileFields(profile),
    points,
    onboardedAt: isoOrNull(user.onboardedAt),
    createdAt: iso(user.createdAt),
    updatedAt: iso(updatedAt),
  };
}

export function toUpdatedProfile(
  user: UserRow,
  profile: ProfileRow | undefined,
): z.infer<typeof UpdatedProfileSchema> {
  return { ...profileFields(profile), updatedAt: iso(profile?.updatedAt ?? user.updatedAt) };
}

/**
 * A board entry. An archived standing of a deleted account has no user id
 * (BoardPageEntrySchema); a live entry always has one.
 */
export function toLeaderboardEntry<E extends RankedEntry | ArchivedEntry>(
  entry: E,
): Omit<z.infer<typeof LeaderboardEntrySchema>, 'userId'> & { userId: E['userId'] } {
  return {
    userId: entry.userId,
    handle: entry.handle,
    name: entry.name,
    profileUrl: entry.profileUrl,
    points: entry.points,
    rank: entry.rank,
  };
}

export function toLedgerEntry(row: LedgerRow): z.infer<typeof LedgerEntrySchema> {
  return {
    id: String(row.id),
    delta: row.delta,
    reason: row.reason,
    questId: row.questId,
    source: creditSource(row),
    balanceAfter: row.balanceAfter,
    createdAt: iso(row.createdAt),
  };
}

export function toQuestProgress(view: QuestProgressView): z.infer<typeof QuestProgressSchema> {
  return announcedQuest(view);
}

export function toStreak(view: StreakView): z.infer<typeof StreakSchema> {
  const { key, title, description, period, milestones } = view.streak.definition;
  return {
    id: key,
    title,
    description,
    period,
    current: view.current,
    best: view.best,
    nextDeadline: isoOrNull(view.nextDeadline),
    countedThisPeriod: view.countedThisPeriod,
    milestones: milestones.map(({ length, points }) => ({ length, points })),
  };
}

export function toQuestList(game: GameProgress): z.infer<typeof QuestListSchema> {
  return { quests: game.quests.map(toQuestProgress), streaks: game.streaks.map(toStreak) };
}

export function toQuestSync(sync: QuestSyncResult): z.infer<typeof QuestSyncSchema> {
  return {
    pointsAwarded: sync.pointsAwarded,
    completed: sync.completed.map(toQuestProgress),
    quests: sync.quests.map(toQuestProgress),
  };
}

function toBoardView(view: BoardView) {
  return {
    period: view.period,
    season: view.season?.id ?? null,
    startsAt: view.season ? iso(view.season.startsAt) : null,
    nextResetAt: view.season ? iso(view.season.endsAt) : null,
  };
}

export function toLeaderboardPage(
  page: Page<RankedEntry | ArchivedEntry> & BoardView,
): z.infer<typeof LeaderboardPageSchema> {
  return {
    ...toBoardView(page),
    entries: page.entries.map(toLeaderboardEntry),
    nextCursor: page.nextCursor,
  };
}

export function toLeaderboardAroundMe(around: AroundMe): z.infer<typeof LeaderboardAroundMeSchema> {
  return {
    ...toBoardView(around),
    entry: toLeaderboardEntry(around.entry),
    above: around.above.map(toLeaderboardEntry),
    below: around.below.map(toLeaderboardEntry),
  };
}

export function toPointsHistoryPage(
  page: Page<LedgerRow>,
): z.infer<typeof PointsHistoryPageSchema> {
  return { entries: page.entries.map(toLedgerEntry), nextCursor: page.nextCursor };
}

export function toAccountExport(account: AccountExport): z.infer<typeof AccountExportSchema> {
  return {
    exportedAt: iso(account.exportedAt),
    identity: { issuer: account.user.issuer, subject: account.user.subject },
    user: toUser(account.user, account.profile, account.points),
    handleHistory: account.handleHistory.map((change) => ({
      oldHandle: change.oldHandle,
      newHandle: change.newHandle,
      kind: change.kind,
      changedAt: iso(change.changedAt),
    })),
    handleReservations: account.handleReservations.map((claim) => ({
      handle: claim.handleKey,
      reservedUntil: iso(claim.reservedUntil),
    })),
    pointsLedger: { balance: account.points, entries: account.ledger.map(toLedgerEntry) },
    quests: account.quests.map(toQuestProgress),
    streaks: account.streaks.map(toStreak),
    activity: account.activity.map((event) => ({
      clientId: event.clientId,
      eventId: event.eventId,
      type: event.type,
      value: event.value,
      occurredAt: iso(event.occurredAt),
      points: event.points,
      recordedAt: iso(event.recordedAt),
      reversedAt: isoOrNull(event.reversedAt),
    })),
    boards: account.boards.map(({ board, entry }) => {
      const season = seasonOfBoard(board);
      return {
        period: season?.period ?? ('all' as const),
        season: season?.id ?? null,
        points: entry.points,
        rank: entry.rank,
      };
    }),
  };
}

export function toLeaderboardSeasons(
  period: SeasonPeriod,
  page: Page<Season>,
): z.infer<typeof LeaderboardSeasonsSchema> {
  return {
    period,
    entries: page.entries.map((season) => ({
      season: season.id,
      startsAt: season.startsAt.toISOString(),
      endsAt: season.endsAt.toISOString(),
    })),
    nextCursor: page.nextCursor,
  };
}
