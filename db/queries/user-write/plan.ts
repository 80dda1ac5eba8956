/**
 * A write as data: everything one write of a user's state changes, computed
 * from the state it read (state.ts) and applied in one statement if the
 * state is still at that version (statement.ts, apply.ts). Plain data and
 * one helper: the services decide what changes with the rules of src/domain
 * (src/domain/placement.ts places points on boards); db/ only renders and
 * runs the statement.
 */
import type {
  HandleHistoryRow,
  LedgerSource,
  ProfileFields,
  StoredQuest,
  StoredStreak,
} from '../../schema.js';
import type { AuditEntry } from '../audit.js';
import type { BoardEntry, StateScope, UserState } from './state.js';

/**
 * Everything one write changes, computed from the state read at
 * `expectedVersion`. Every timestamp written is the statement's `now()`.
 */
export interface UserWritePlan {
  userId: string;
  expectedVersion: number;
  /**
   * The app's clock the write chose its week and month boards by
   * (src/domain/boards.ts). Its ledger entries keep it as `recorded_at`, so
   * the ledger says which seasons an entry counts in (a fan's points before
   * onboarding open their season entries from it: docs/ACTIVITY.md). Every
   * stamp the write stores is the statement's `now()`.
   */
  at: Date;
  /**
   * Set when the plan was made from a cached state (src/services/state-cache.ts):
   * a write that finds the version moved then returns the state it found, of
   * this scope, so the retry needs no read of its own.
   */
  returnStateOn?: StateScope | undefined;
  /** Sets onboarded_at (first time only; a later onboarding keeps the first time). */
  onboard: boolean;
  /** The whole profile to store (insert on first write), or undefined to leave it. */
  profile: ProfileFields | undefined;
  /**
   * The board entries this write stores (src/domain/placement.ts). On the all-time
   * board `points` is the balance after the write. An entry whose points
   * change takes the write's new sequence number (and reached_at); one whose
   * points stay keeps both.
   */
  boards: readonly BoardWrite[];
  /**
   * The holder's team after the write. Entries created, and all entries
   * written when `changed`, get team_key = teamKey(favoriteTeam)
   * (db/team-key.ts); others keep theirs.
   */
  team: { favoriteTeam: string | null; changed: boolean };
  /** Quest states (per period) whose stored progress, target, tiers or status change. */
  quests: readonly StoredQuest[];
  /** Streak states that change. */
  streaks?: readonly StoredStreak[];
  /** Events from other services this write records, and the one it reverses. */
  activity?: ActivityWrite;
  /** Ledger entries, in the order their balances were computed (src/domain/placement.ts). */
  credits: readonly LedgerCredit[];
  /**
   * Outbox events (docs/LIVE.md), in order, inserted and announced (NOTIFY,
   * delivered on commit) by this same statement. A `quest_completed`
   * payload's `quest.completedAt` is set to the statement's clock.
   */
  events?: readonly { type: string; payload: unknown }[];
  /**
   * The user's rank moves on the whole board and on their team's board follow
   * the events as `rank_changed` events, computed in the statement from the
   * snapshot it writes over; only when the write stores the all-time entry.
   */
  announceRanks?: boolean;
  /** Also return the newest ledger entries (after the write), up to this many. */
  historyLimit: number;
  /** Also return the all-time rank after the write (the entry must exist after it). */
  rank: boolean;
  /** The handle's claims and history when the write changes the handle, else undefined. */
  handle?: HandleMove | undefined;
  /**
   * Bans the fan (their entries leave every board and count) or lifts the
   * ban (their entries count again where they stand). While a fan is banned,
   * every entry a write stores is hidden and moves no count, and their rank
   * moves are not announced: the statement reads the ban from its guard row.
   */
  ban?: 'ban' | 'unban' | undefined;
  /** The admin's change this write makes, kept in the audit log with it (db/queries/audit.ts). */
  audit?: AuditEntry | undefined;
}

/**
 * One ledger entry the write inserts, with the balance after it (computed
 * from the balance read with the plan: src/domain/placement.ts).
 */
export interface LedgerCredit {
  /** The ledger's idempotency key: unique per user, so the same entry can never land twice. */
  key: string;
  delta: number;
  reason: string;
  questId: string | null;
  source: LedgerSource;
  sourceDetail: Record<string, unknown> | null;
  balanceAfter: number;
}

/**
 * A plan that changes nothing of `state` but its version: a write of points,
 * events, a ban or an audit row starts from it and sets what it changes. It
 * keeps the profile and the team as they are, asks for no history or rank.
 */
export function unchangedPlan(state: UserState, at: Date): UserWritePlan {
  return {
    userId: state.user.id,
    expectedVersion: state.user.version,
    at,
    onboard: false,
    profile: undefined,
    boards: [],
    team: { favoriteTeam: state.profile?.favoriteTeam ?? null, changed: false },
    quests: [],
    credits: [],
    historyLimit: 0,
    rank: false,
  };
}

/** An activity_events row a write records: the event and the result it had. */
export interface RecordedActivity {
  clientId: string;
  eventId: string;
  type: string;
  typeVersion: number;
  value: number;
  occurredAt: Date;
  bodyHash: string;
  points: number;
  balanceAfter: number;
  questsCompleted: readonly unknown[];
}

export interface ActivityWrite {
  recorded: readonly RecordedActivity[];
  /** The event this write reverses: marked reversed (its row is kept). */
  reversed?: { clientId: string; eventId: string } | undefined;
}

/** One board entry a write stores. */
export interface BoardWrite {
  board: string;
  /** The entry as read with the plan; undefined when the write creates it. */
  before: BoardEntry | undefined;
  points: number;
}

/**
 * A change of the stored handle. The claim on the new key is the database's
 * judgement: the user's own row (held, or reserved for them) or an expired
 * reservation is taken over, anything else makes the insert fail on
 * handle_claims_pkey and the whole statement write nothing (`handle_taken`).
 */
export interface HandleMove {
  /** The key to claim (a first handle or another handle); undefined for a change of letter case. */
  claimKey: string | undefined;
  /** The key given up, reserved for the user for `reserveDays` (0: free at once). */
  release: { key: string; reserveDays: number } | undefined;
  /** The handle_history row. */
  history: Pick<HandleHistoryRow, 'oldHandle' | 'newHandle' | 'kind'>;
}
