import { describe, expect, it } from 'vitest';
import { StreakBook, streakViews, type StoredStreak } from '../../src/domain/streaks.js';
import { defaultCatalog } from '../helpers/catalog.js';

const daily = defaultCatalog([
  {
    kind: 'streak',
    key: 'daily_reads',
    title: 'Daily reads',
    eventType: 'article_read',
    period: 'day',
    milestones: [
      { length: 2, points: 5 },
      { length: 3, points: 10 },
    ],
  },
]);
const at = (iso: string) => new Date(iso);

function run(book: StreakBook, ...times: string[]) {
  return times.map((time) => book.recordEvent('article_read', at(time)));
}

describe('streaks', () => {
  it('count consecutive UTC days, once per day, across midnight exactly', () => {
    const book = new StreakBook(daily, new Map());
    const steps = run(
      book,
      '2026-11-20T23:59:59.999Z',
      '2026-11-21T00:00:00Z',
      '2026-11-21T18:00:00Z',
      '2026-11-22T00:00:01Z',
    );
    expect(steps.map((s) => s.events.map((e) => `${e.type}:${e.state.current}`))).toEqual([
      ['streak_extended:1'],
      ['streak_extended:2'],
      [],
      ['streak_extended:3'],
    ]);
    expect(book.plan().milestones.map((m) => [m.key, m.points])).toEqual([
      ['streak:daily_reads:2026-11-20:2', 5],
      ['streak:daily_reads:2026-11-20:3', 10],
    ]);
  });

  it('break on a missed day: announced lost, the next event starts at 1, best kept', () => {
    const book = new StreakBook(daily, new Map());
    run(book, '2026-11-20T10:00:00Z', '2026-11-21T10:00:00Z');
    const [after] = run(book, '2026-11-23T10:00:00Z');
    expect(after!.events.map((e) => e.type)).toEqual(['streak_lost', 'streak_extended']);
    expect(after!.events[0]).toMatchObject({ length: 2 });
    const state = book.plan().writes[0]!;
    expect(state).toMatchObject({ current: 1, best: 2, runStartedAt: at('2026-11-23T00:00:00Z') });
    // A milestone of a new run earns again under the new run's key.
    run(book, '2026-11-24T10:00:00Z');
    expect(book.plan().milestones.map((m) => m.key)).toEqual([
      'streak:daily_reads:2026-11-20:2',
      'streak:daily_reads:2026-11-23:2',
    ]);
  });

  it('ignore an event dated before the last counted day', () => {
    const stored = new Map<string, StoredStreak>([
      [
        'daily_reads',
        {
          streakId: 'daily_reads',
          current: 4,
          best: 4,
          lastPeriodStart: at('2026-11-21T00:00:00Z'),
          runStartedAt: at('2026-11-18T00:00:00Z'),
        },
      ],
    ]);
    const book = new StreakBook(daily, stored);
    const [late] = run(book, '2026-11-19T12:00:00Z');
    expect(late!.events).toEqual([]);
    expect(book.plan().writes).toEqual([]);
  });

  it('read as broken once a whole period passes, with the deadline while alive', () => {
    const stored = new Map<string, StoredStreak>([
      [
        'daily_reads',
        {
          streakId: 'daily_reads',
          current: 4,
          best: 6,
          lastPeriodStart: at('2026-11-21T00:00:00Z'),
          runStartedAt: at('2026-11-18T00:00:00Z'),
        },
      ],
    ]);
    const view = (now: string) =>
      streakViews(daily, stored, at(now)).find((v) => v.streak.definition.key === 'daily_reads')!;
    expect(view('2026-11-21T20:00:00Z')).toMatchObject({
      current: 4,
      best: 6,
      countedThisPeriod: true,
      nextDeadline: at('2026-11-23T00:00:00Z'),
    });
    expect(view('2026-11-22T23:59:59Z')).toMatchObject({
      current: 4,
      countedThisPeriod: false,
      nextDeadline: at('2026-11-23T00:00:00Z'),
    });
    expect(view('2026-11-23T00:00:00Z')).toMatchObject({ current: 0, best: 6, nextDeadline: null });
  });

  it('count ISO weeks for the default match-day streak (Monday 00:00 UTC starts a week)', () => {
    const book = new StreakBook(defaultCatalog(), new Map());
    const steps = ['2026-11-22T23:00:00Z', '2026-11-23T00:00:00Z', '2026-11-30T12:00:00Z'].map(
      (t) => book.recordEvent('match_checkin', at(t)),
    );
    expect(steps.map((s) => s.events.map((e) => e.state.current))).toEqual([[1], [2], [3]]);
    expect(book.plan().milestones.map((m) => [m.key, m.points])).toEqual([
      ['streak:matchday_streak:2026-W47:3', 30],
    ]);
  });
});
