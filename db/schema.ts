import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types as Kysely sees them. Columns are snake_case in PostgreSQL and
 * camelCase here: the CamelCasePlugin (db/database.ts) maps between the two.
 */
export interface Database {
  users: UsersTable;
  profiles: ProfilesTable;
  pointsLedger: PointsLedgerTable;
  leaderboardEntries: LeaderboardEntriesTable;
  userQuests: UserQuestsTable;
  handleClaims: HandleClaimsTable;
  handleHistory: HandleHistoryTable;
  liveEvents: LiveEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
}

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface UsersTable {
  id: Generated<string>;
  issuer: string;
  subject: string;
  /**
   * Bumped by every write of the user's state (profile, quests, ledger, board
   * entries): the optimistic-concurrency guard of db/queries/user-write.ts.
   */
  version: Generated<number>;
  onboardedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
  /** Set only on tombstones: the rows that hold a deleted account's pseudonymised ledger. */
  deletedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The eight profile fields, in the order the contract lists them. */
export const PROFILE_FIELDS = [
  'name',
  'handle',
  'location',
  'favoriteSport',
  'favoriteTeam',
  'favoritePlayer',
  'rivalTeam',
  'profileUrl',
] as const satisfies readonly (keyof ProfileFields)[];

export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** The eight profile fields, shared by PATCH, onboarding and every DTO. */
export interface ProfileFields {
  name: string | null;
  handle: string | null;
  location: string | null;
  favoriteSport: string | null;
  favoriteTeam: string | null;
  favoritePlayer: string | null;
  rivalTeam: string | null;
  profileUrl: string | null;
}

export interface ProfilesTable extends ProfileFields {
  userId: string;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
}

export interface PointsLedgerTable {
  /** bigint identity; pg returns it as a string, PGlite as a number. */
  id: ColumnType<string | number | bigint, never, never>;
  userId: string;
  delta: number;
  reason: string;
  questId: string | null;
  idempotencyKey: string;
  balanceAfter: number;
  createdAt: Generated<Date>;
}

export interface LeaderboardEntriesTable {
  userId: string;
  points: number;
  /** When the current score was reached: the first tie-breaker of rank. */
  reachedAt: Timestamp;
  updatedAt: Timestamp;
  /** lower(favoriteTeam) of the holder, or null: the key of the fan leaderboards. */
  teamKey: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UserQuestsTable {
  userId: string;
  questId: string;
  progress: number;
  target: number;
  status: 'in_progress' | 'completed';
  completedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updatedAt: Timestamp;
}

/** The transactional outbox (db/migrations/20261123T2030_live_events.ts). */
export interface LiveEventsTable {
  /** bigint identity: a string on both drivers. */
  id: ColumnType<string, never, never>;
  userId: string;
  type: string;
  payload: ColumnType<unknown, string, string>;
  createdAt: Generated<Date>;
  webhookAttempts: Generated<number>;
  /** When the next webhook attempt is due; null once delivered or given up. */
  webhookNextAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface WebhookDeliveriesTable {
  id: ColumnType<string, never, never>;
  eventId: string;
  attempt: number;
  outcome: 'delivered' | 'failed' | 'gave_up';
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: Generated<Date>;
}

/** Who holds or reserves a handle (see migration 20261123T1945). */
export interface HandleClaimsTable {
  /** The handle's case-insensitive key (src/domain/handles.ts `handleKey`). */
  handleKey: string;
  /** The holder, or whom a given-up handle is reserved for; null once that account is deleted. */
  userId: string | null;
  /** null: held. A time: given up and reserved until then. */
  reservedUntil: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updatedAt: Timestamp;
}

export interface HandleHistoryTable {
  id: ColumnType<string | number | bigint, never, never>;
  userId: string;
  /** null when the user set their first handle. */
  oldHandle: string | null;
  newHandle: string;
  kind: 'first' | 'change' | 'recase';
  changedAt: Generated<Date>;
}

/** A quest's state as stored per user (a user_quests row without its keys and clock). */
export interface StoredQuest {
  questId: string;
  progress: number;
  target: number;
  status: 'in_progress' | 'completed';
  completedAt: Date | null;
}

export type UserRow = Selectable<UsersTable>;
export type ProfileRow = Selectable<ProfilesTable>;
export type NewProfile = Insertable<ProfilesTable>;
export type ProfileUpdate = Updateable<ProfilesTable>;
export type LedgerRow = Selectable<PointsLedgerTable>;
export type LeaderboardRow = Selectable<LeaderboardEntriesTable>;
export type UserQuestRow = Selectable<UserQuestsTable>;
export type LiveEventRow = Selectable<LiveEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type HandleHistoryRow = Selectable<HandleHistoryTable>;
