import { seasonAt } from './seasons.js';

/**
 * The periods the game counts in, all in UTC: a day, an ISO week (Monday to
 * Sunday, as the weekly boards) and a calendar month. A period is named by
 * its id (`2026-11-25`, `2026-W48`, `2026-11`), which award keys carry.
 */
export type PeriodKind = 'day' | 'week' | 'month';

export interface PeriodSpan {
  kind: PeriodKind;
  id: string;
  startsAt: Date;
  /** The next period's start (exclusive end). */
  endsAt: Date;
}

const DAY_MS = 86_400_000;

/** The period of `kind` holding `at`. */
export function periodAt(kind: PeriodKind, at: Date): PeriodSpan {
  if (kind === 'day') {
    const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
    const startsAt = new Date(start);
    return {
      kind,
      id: startsAt.toISOString().slice(0, 10),
      startsAt,
      endsAt: new Date(start + DAY_MS),
    };
  }
  const season = seasonAt(kind, at);
  return { kind, id: season.id, startsAt: season.startsAt, endsAt: season.endsAt };
}

/** The period right after `span`. */
export function nextPeriod(span: PeriodSpan): PeriodSpan {
  return periodAt(span.kind, span.endsAt);
}

/** The period right before `span`. */
export function previousPeriod(span: PeriodSpan): PeriodSpan {
  return periodAt(span.kind, new Date(span.startsAt.getTime() - 1));
}

/**
 * The quest periods a write at `now` reads and reports: one-time quests ('')
 * and the day, week and month holding `now`.
 */
export function currentPeriods(now: Date): string[] {
  return ['', periodAt('day', now).id, periodAt('week', now).id, periodAt('month', now).id];
}
