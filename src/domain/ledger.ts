import type { PointsMove } from './placement.js';
import { AppError } from '../app-error.js';

/**
 * The most points a balance, or a fan's entry on any board, may hold
 * (docs/ACTIVITY.md, "Limits"). Balances, ledger entries, events and board
 * entries keep points in `integer` columns, and the rank structure keys a
 * score on 31 bits (db/queries/rank.ts): every total stays inside both. An
 * award that would take a total past it is refused where the points enter:
 * an event is rejected on its own (POINTS_LIMIT_REACHED), an adjustment or a
 * profile write answers 409 POINTS_LIMIT_REACHED. Nothing is clamped: what
 * is awarded is what was earned, or nothing.
 */
export const MAX_POINTS = 2_000_000_000;

/** Whether every total (a balance after a move, a board entry's points) is within MAX_POINTS. */
export function withinPointsLimit(totals: Iterable<number>): boolean {
  for (const total of totals) if (total > MAX_POINTS) return false;
  return true;
}

/** The answer to a write whose awards would take a total past MAX_POINTS. */
export function pointsLimitError(what: string): AppError {
  return new AppError(
    'POINTS_LIMIT_REACHED',
    `${what} would take the fan's points past ${MAX_POINTS.toLocaleString('en-US')}, the most a ` +
      'balance or a board entry may hold',
  );
}

/**
 * Where a ledger entry's points came from: every award, reversal and
 * adjustment is one append-only entry with its source (GET /api/user/points
 * shows it; docs/ACTIVITY.md).
 */
export type CreditSource =
  | { kind: 'quest'; questId: string; period: string | null; tier: number }
  | { kind: 'event'; type: string; clientId: string; eventId: string }
  | { kind: 'streak'; streakId: string; length: number }
  | { kind: 'reversal'; type: string; clientId: string; eventId: string }
  | { kind: 'adjustment'; by: string; note: string };

/** A change of a user's points, before it has a place in the ledger. */
export interface Award {
  /** The ledger's idempotency key: unique per user, so it lands once. */
  key: string;
  delta: number;
  source: CreditSource;
}

/** The ledger's `reason` of each kind of source (kept beside `source` for older readers). */
const REASON: Record<CreditSource['kind'], string> = {
  quest: 'quest_completed',
  event: 'event_recorded',
  reversal: 'event_reversed',
  streak: 'streak_milestone',
  adjustment: 'adjustment',
};

/** The write module's move for `award`, moving `boards` by its delta. */
export function pointsMove(award: Award, boards: readonly string[]): PointsMove {
  const { kind, ...detail } = award.source;
  return {
    key: award.key,
    delta: award.delta,
    reason: REASON[kind],
    questId: award.source.kind === 'quest' ? award.source.questId : null,
    source: kind,
    sourceDetail: detail,
    boards,
  };
}

/**
 * A stored entry's source. Entries written before sources were stored are
 * quest awards of one-time quests (their only kind then).
 */
export function creditSource(row: {
  source: CreditSource['kind'];
  sourceDetail: unknown;
  questId: string | null;
}): CreditSource {
  const detail = (row.sourceDetail ?? {}) as Record<string, unknown>;
  if (row.source === 'quest' && row.sourceDetail == null) {
    return { kind: 'quest', questId: row.questId ?? '', period: null, tier: 1 };
  }
  return { ...detail, kind: row.source } as CreditSource;
}
