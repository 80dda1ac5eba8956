import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { ProfileFields } from './profile-fields.js';

export type { ProfileField, ProfileFields } from './profile-fields.js';

/**
 * Table types as Kysely sees them. Columns are snake_case in PostgreSQL and
 * camelCase here: the CamelCasePlugin (db/database.ts) maps between the two.
 */
export interface Database {
  users: UsersTable;
  profiles: ProfilesTable;
  pointsLedger: PointsLedgerTable;
  leaderboardEntries: LeaderboardEntriesTable;
  rankCounts: RankCountsTable;
  userQuests: UserQuestsTable;
  handleClaims: HandleClaimsTable;
  handleHistory: HandleHistoryTable;
  liveEvents: LiveEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookQueue: WebhookQueueTable;
  seasonArchives: SeasonArchivesTable;
  seasonStandings: SeasonStandingsTable;
  catalogDefinitions: CatalogDefinitionsTable;
  catalogRevision: CatalogRevisionTable;
  activityEvents: ActivityEventsTable;
  userStreaks: UserStreaksTable;
  adminAudit: AdminAuditTable;
}

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface UsersTable {
  id: Generated<string>;
  issuer: string;
  subject: string;
  /**
   * Bumped by every write of the user's state (profile, quests, ledger, board
   * entries, handle claims and history): the optimistic-concurrency guard of
   * db/queries/user-write/.
   */
  version: Generated<number>;
  onboardedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
  /**
   * Set only on tombstones, the rows that hold a deleted account's
   * pseudonymised ledger: the epoch, as are their other times (no time of
   * the deletion is stored).
   */
  deletedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Set while an admin has banned the fan: their events are refused, their entries hidden. */
  bannedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The profile fields' columns (db/profile-fields.ts), with the row's keys and clock. */
export interface ProfilesTable extends ProfileFields {
  userId: string;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
}

export interface PointsLedgerTable {
  /** bigint identity: a string on both drivers (db/database.ts). */
  id: ColumnType<string, never, never>;
  userId: string;
  delta: number;
  reason: string;
  questId: string | null;
  idempotencyKey: string;
  balanceAfter: number;
  /** The write statement's clock, as every other stamp of the write. */
  createdAt: Generated<Date>;
  /**
   * The app's clock the write chose its week and month boards by: which
   * seasons the entry counts in. NULL on entries from before it was kept
   * (db/migrations/20261128T0800_ledger_recorded_at.ts): `createdAt` then.
   */
  recordedAt: ColumnType<Date | null, Date | string | null | undefined, never>;
  /** Where the points came from: quest, event, reversal, streak or adjustment. */
  source: Generated<LedgerSource>;
  /** The source's details (src/domain/activity.ts CreditSource, without its kind). */
  sourceDetail: ColumnType<unknown, string | null | undefined, never>;
}

export type LedgerSource = 'quest' | 'event' | 'reversal' | 'streak' | 'adjustment';

/** The all-time board's name: the board that keeps the balance (LeaderboardEntriesTable). */
export const ALL_TIME_BOARD = 'all';

/**
 * One entry per (board, user). Boards (db/queries/user-write/ writes them,
 * db/queries/rank.ts ranks them):
 *
 * - `'all'` — the all-time board. Every onboarded user has an entry; its
 *   `points` IS the balance (the contract keeps the balance on the
 *   leaderboard row; the ledger's newest `balanceAfter` equals it).
 * - `'week:<ISO year>-W<ISO week>'`, e.g. `'week:2026-W48'` — points earned in
 *   that ISO week (UTC). `'month:<year>-<month>'`, e.g. `'month:2026-11'` —
 *   points earned in that UTC month. A season entry is created by the user's
 *   first award in the window; every award credits the all-time board and
 *   the week and month boards of the write's clock. Past seasons' entries
 *   are never written again (their standings are final).
 *
 * Rank order on a board: points desc, `reachedSeq` asc, userId asc. A team
 * board is the entries of one board with one `teamKey`. Every change to an
 * entry's points or team must move its `rank_counts` rows in the same
 * statement (or `rebuildRankCounts` after a bulk load).
 */
export interface LeaderboardEntriesTable {
  board: string;
  userId: string;
  points: number;
  /**
   * From the sequence `leaderboard_reached_seq`, taken by the write that set
   * the current points: who reached that score first. One number per write,
   * so unique within a board. bigint: a string on both drivers.
   */
  reachedSeq: ColumnType<string, string | bigint | number, string | bigint | number>;
  /** When the current score was reached, for display; the order uses reachedSeq. */
  reachedAt: Timestamp;
  updatedAt: Timestamp;
  /**
   * teamKey(favoriteTeam) of the holder (db/team-key.ts), or null: the key of
   * the fan leaderboards.
   */
  teamKey: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * A banned fan's entry: kept with its points and place, but counted in no
   * `rank_counts` row and shown on no board until the fan is unbanned.
   */
  hidden: Generated<boolean>;
}

/**
 * How many entries fall in each cell of a board (teamKey '') or of one team
 * on it: the structure that makes rank exact in flat time (db/queries/rank.ts).
 */
export interface RankCountsTable {
  board: string;
  teamKey: string;
  /**
   * −3, −2, −1: per range of 2^24, 2^16, 2^8 scores; 0: per score; 1, 2, 3:
   * per score and range of 2^24, 2^16, 2^8 sequence numbers.
   */
  level: number;
  /** The score, or on levels −3, −2, −1 the score >> 24, >> 16, >> 8. */
  points: number;
  /** 0 on levels −3…0; reachedSeq >> 24, >> 16, >> 8 on levels 1, 2, 3. bigint as text. */
  bucket: ColumnType<string, string | bigint | number, string | bigint | number>;
  /** The cell's count is the sum over its shards (0–3). */
  shard: number;
  /** May be negative on one shard; only sums mean anything. bigint as text. */
  n: ColumnType<string, string | bigint | number, string | bigint | number>;
}

export interface UserQuestsTable {
  userId: string;
  questId: string;
  /** The period of a repeating quest (`2026-11-25`, `2026-W48`, `2026-11`); '' for a one-time one. */
  period: Generated<string>;
  tiersReached: Generated<number>;
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
  /** null only on `account_deleted` events: the account is gone (the id is in the payload). */
  userId: string | null;
  type: string;
  payload: ColumnType<unknown, string, string>;
  createdAt: Generated<Date>;
  /** Not null until the webhook worker has queued the event for the endpoints (when it is due). */
  webhookNextAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface WebhookDeliveriesTable {
  id: ColumnType<string, never, never>;
  eventId: string;
  /** null on attempts logged before endpoints existed (the one WEBHOOK_URL). */
  endpointId: string | null;
  attempt: number;
  /** The event's type (`webhook_test` for a test event); null on attempts logged before it was kept. */
  eventType: string | null;
  outcome: 'delivered' | 'failed' | 'gave_up';
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: Generated<Date>;
}

/** Where events are POSTed (db/migrations/20261126T1300_webhook_endpoints.ts). */
export interface WebhookEndpointsTable {
  id: Generated<string>;
  source: ColumnType<'admin' | 'config', 'admin' | 'config' | undefined, never>;
  url: string;
  description: string | null;
  /** Empty: every type. */
  eventTypes: ColumnType<string[], string[] | undefined, string[]>;
  /** `whsec_…`: never leaves the service but once, when it is made. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: ColumnType<
    Date | null,
    Date | string | null | undefined,
    Date | string | null
  >;
  enabled: Generated<boolean>;
  receivesSince: Timestamp;
  createdAt: Generated<Date>;
  updatedAt: Timestamp;
  retiredAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

/** One (endpoint, event) still to be delivered. */
export interface WebhookQueueTable {
  endpointId: string;
  eventId: string;
  userId: string | null;
  attempts: Generated<number>;
  nextAt: Timestamp;
}

/** Who holds or reserves a handle (see migration 20261123T1945). */
export interface HandleClaimsTable {
  /** The handle's case-insensitive key (src/domain/handles.ts `handleKey`). */
  handleKey: string;
  /** The holder, or whom a given-up handle is reserved for (deleted with that account). */
  userId: string;
  /** null: held. A time: given up and reserved until then. */
  reservedUntil: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updatedAt: Timestamp;
}

export interface HandleHistoryTable {
  /** bigint identity: a string on both drivers (db/database.ts). */
  id: ColumnType<string, never, never>;
  userId: string;
  /** null when the user set their first handle. */
  oldHandle: string | null;
  newHandle: string;
  kind: 'first' | 'change' | 'recase';
  changedAt: Generated<Date>;
}

/** A quest's state as stored per user and period (a user_quests row without the user and clock). */
/** A stored quest's key among a user's quests: its id, and its period when it repeats. */
export function questKey(questId: string, period: string): string {
  return period === '' ? questId : `${questId}@${period}`;
}

export interface StoredQuest {
  questId: string;
  /** The period's id for a repeating quest (`2026-11-25`, `2026-W48`, `2026-11`); '' for a one-time one. */
  period: string;
  progress: number;
  /** The next tier's target; the last tier's once every tier is reached. */
  target: number;
  /** How many tiers have been reached (and awarded). */
  tiersReached: number;
  /** `completed` once every tier is reached; it never goes back. */
  status: 'in_progress' | 'completed';
  /** When the last tier was reached; once set, never moves. */
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

/** One row per closed season whose final standings were cut (docs/SEASONS.md). */
export interface SeasonArchivesTable {
  /** The season's board: `week:2026-W47`, `month:2026-11`. */
  board: string;
  /** When the season ended. */
  closedAt: Timestamp;
  archivedAt: Generated<Date>;
}

/** A closed season's final standings; user_id is null once the account is deleted. */
export interface SeasonStandingsTable {
  board: string;
  rank: number;
  userId: string | null;
  points: number;
}

/** Every version of every definition of the game (docs/CATALOG.md). */
export interface CatalogDefinitionsTable {
  kind: 'event_type' | 'quest' | 'streak';
  key: string;
  version: number;
  definition: ColumnType<unknown, string, never>;
  retired: Generated<boolean>;
  /** The admin client (or `default-catalog`) that made this version. */
  changedBy: string;
  changedAt: Generated<Date>;
}

/** One row: moved by every catalog change. bigint as text. */
export interface CatalogRevisionTable {
  id: Generated<boolean>;
  revision: ColumnType<string, string | number, string | number>;
}

/** Every event recorded from another service (docs/ACTIVITY.md). */
export interface ActivityEventsTable {
  id: ColumnType<string, never, never>;
  clientId: string;
  eventId: string;
  userId: string;
  type: string;
  typeVersion: number;
  value: number;
  occurredAt: ColumnType<Date, Date | string, never>;
  /** What must match when the id is sent again (src/domain/activity.ts eventBodyHash). */
  bodyHash: string;
  points: number;
  balanceAfter: number;
  questsCompleted: ColumnType<unknown, string | undefined, never>;
  recordedAt: Generated<Date>;
  reversedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface UserStreaksTable {
  userId: string;
  streakId: string;
  current: number;
  best: number;
  /** The start of the last period with a qualifying event; null before the first. */
  lastPeriodStart: ColumnType<Date | null, Date | string | null, Date | string | null>;
  /** The start of the current run's first period. */
  runStartedAt: ColumnType<Date | null, Date | string | null, Date | string | null>;
  updatedAt: Timestamp;
}

export type ActivityEventRow = Selectable<ActivityEventsTable>;

/** A streak's state as stored per user (a user_streaks row without the user and clock). */
export type StoredStreak = Omit<Selectable<UserStreaksTable>, 'userId' | 'updatedAt'>;

/** Every change an admin made (docs/CATALOG.md, "Audit log"). Append-only. */
export interface AdminAuditTable {
  id: ColumnType<string, never, never>;
  /** The admin client (its client id) that made the change. */
  actor: string;
  action: string;
  /** `definition:<kind>`, `fan`, `event`, `webhook_endpoint`. */
  targetKind: string;
  /** The definition's key, the fan's user id, `<client>:<event id>`, the endpoint's id. */
  targetKey: string;
  before: ColumnType<unknown, string | null, never>;
  after: ColumnType<unknown, string | null, never>;
  at: Generated<Date>;
}

export type AdminAuditRow = Selectable<AdminAuditTable>;
