import type { StoredStreak } from '../../db/schema.js';
import type { Catalog, StreakDefinition, Versioned } from './catalog.js';
import type { Award } from './ledger.js';
import { nextPeriod, periodAt, type PeriodSpan } from './periods.js';
import { refill } from './quests.js';

/**
 * Streaks (docs/CATALOG.md): consecutive UTC days or ISO weeks with at least
 * one qualifying event. Two events in one period count once; a period with
 * none breaks the streak, and the next qualifying event starts a new one at 1
 * (announced as `streak_lost`, then `streak_extended`). An event dated before
 * the streak's last counted period changes nothing.
 */

export type { StoredStreak };

/** What a change of a streak announces. */
export type StreakEvent =
  | { type: 'streak_extended'; streak: Versioned<StreakDefinition>; state: StoredStreak }
  | {
      type: 'streak_lost';
      streak: Versioned<StreakDefinition>;
      length: number;
      state: StoredStreak;
    };

/** A milestone reached: it earns `points` once, under `key`. */
export interface ReachedMilestone {
  streak: Versioned<StreakDefinition>;
  length: number;
  points: number;
  key: string;
}

/**
 * The ledger key of a milestone: the run is named by its first period, so
 * the same length reached again in a later run earns again, and never twice
 * in one run.
 */
export function streakAwardKey(streakId: string, run: PeriodSpan, length: number): string {
  return `streak:${streakId}:${run.id}:${length}`;
}

/** The award a reached milestone earns. */
export function streakAward(milestone: ReachedMilestone): Award {
  return {
    key: milestone.key,
    delta: milestone.points,
    source: { kind: 'streak', streakId: milestone.streak.definition.key, length: milestone.length },
  };
}

function emptyStreak(streakId: string): StoredStreak {
  return { streakId, current: 0, best: 0, lastPeriodStart: null, runStartedAt: null };
}

/** A working copy of a user's streaks that a batch of events accumulates into. */
export class StreakBook {
  private readonly states: Map<string, StoredStreak>;
  private readonly written = new Map<string, StoredStreak>();
  private readonly announced: StreakEvent[] = [];
  private readonly milestones: ReachedMilestone[] = [];

  constructor(
    private readonly catalog: Catalog,
    stored: ReadonlyMap<string, StoredStreak>,
  ) {
    this.states = new Map(stored);
  }

  /** A qualifying event of `type` occurred at `at`. */
  recordEvent(type: string, at: Date): { events: StreakEvent[]; milestones: ReachedMilestone[] } {
    const events: StreakEvent[] = [];
    const milestones: ReachedMilestone[] = [];
    for (const streak of this.catalog.streaks) {
      const { key, eventType, period } = streak.definition;
      if (eventType !== type) continue;
      const span = periodAt(period, at);
      const before = this.states.get(key) ?? emptyStreak(key);
      const last = before.lastPeriodStart;
      if (last !== null && span.startsAt.getTime() <= last.getTime()) continue;
      const continues =
        last !== null &&
        nextPeriod(periodAt(period, last)).startsAt.getTime() === span.startsAt.getTime();
      if (last !== null && !continues && before.current > 0) {
        const lost = { ...before, current: 0 };
        events.push({ type: 'streak_lost', streak, length: before.current, state: lost });
      }
      const current = continues ? before.current + 1 : 1;
      const runStartedAt = continues && before.runStartedAt ? before.runStartedAt : span.startsAt;
      const after: StoredStreak = {
        streakId: key,
        current,
        best: Math.max(before.best, current),
        lastPeriodStart: span.startsAt,
        runStartedAt,
      };
      this.states.set(key, after);
      this.written.set(key, after);
      events.push({ type: 'streak_extended', streak, state: after });
      for (const milestone of streak.definition.milestones) {
        if (milestone.length !== current) continue;
        milestones.push({
          streak,
          length: current,
          points: milestone.points,
          key: streakAwardKey(key, periodAt(period, runStartedAt), current),
        });
      }
    }
    this.announced.push(...events);
    this.milestones.push(...milestones);
    return { events, milestones };
  }

  /** Puts the book back as it is now when the returned function is called (an event refused whole). */
  checkpoint(): () => void {
    const states = new Map(this.states);
    const written = new Map(this.written);
    const announced = this.announced.length;
    const milestones = this.milestones.length;
    return () => {
      refill(this.states, states);
      refill(this.written, written);
      this.announced.length = announced;
      this.milestones.length = milestones;
    };
  }

  plan(): { writes: StoredStreak[]; events: StreakEvent[]; milestones: ReachedMilestone[] } {
    return {
      writes: [...this.written.values()],
      events: this.announced,
      milestones: this.milestones,
    };
  }
}

/** A streak as a reader sees it at `now`. */
export interface StreakView {
  streak: Versioned<StreakDefinition>;
  /** 0 when the streak is broken (a whole period passed with no qualifying event). */
  current: number;
  best: number;
  /** The end of the last period that can extend the current streak; null when there is none. */
  nextDeadline: Date | null;
  /** Whether the period holding `now` already counts. */
  countedThisPeriod: boolean;
}

export function streakViews(
  catalog: Catalog,
  stored: ReadonlyMap<string, StoredStreak>,
  now: Date,
): StreakView[] {
  return catalog.streaks.map((streak) => {
    const state = stored.get(streak.definition.key) ?? emptyStreak(streak.definition.key);
    const { period } = streak.definition;
    if (state.lastPeriodStart === null) {
      return { streak, current: 0, best: state.best, nextDeadline: null, countedThisPeriod: false };
    }
    const next = nextPeriod(periodAt(period, state.lastPeriodStart));
    const alive = now.getTime() < next.endsAt.getTime();
    const counted = periodAt(period, now).startsAt.getTime() === state.lastPeriodStart.getTime();
    return {
      streak,
      current: alive ? state.current : 0,
      best: state.best,
      nextDeadline: alive ? next.endsAt : null,
      countedThisPeriod: counted,
    };
  });
}
