import type { PointsMove } from '../../db/queries/user-write/index.js';

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
