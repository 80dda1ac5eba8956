import { describe, expect, it } from 'vitest';
import {
  checkEvent,
  eventBodyHash,
  isRejection,
  planFanEvents,
  usageKey,
  type AcceptedEvent,
  type FanActivityState,
} from '../../src/domain/activity.js';
import { MAX_POINTS } from '../../src/domain/ledger.js';
import { periodAt } from '../../src/domain/periods.js';
import { defaultCatalog } from '../helpers/catalog.js';

const catalog = defaultCatalog();
const now = new Date('2026-11-25T15:00:00Z');
const empty: FanActivityState = {
  usage: new Map(),
  quests: new Map(),
  streaks: new Map(),
  balance: 0,
  entries: new Map(),
};

function accept(
  events: { id: string; type: string; value?: number; occurredAt?: string }[],
): AcceptedEvent[] {
  return events.map((event, index) => {
    const checked = checkEvent({ subject: 'fan', ...event }, index, catalog, now, 168);
    if (isRejection(checked)) throw new Error(checked.message);
    return checked;
  });
}

describe('checkEvent', () => {
  it.each([
    ['an unknown type', { type: 'nope' }, 'UNKNOWN_EVENT_TYPE'],
    ['a zero value', { type: 'article_read', value: 0 }, 'INVALID_VALUE'],
    ['a fractional value', { type: 'article_read', value: 1.5 }, 'INVALID_VALUE'],
    ['a value over maxValue', { type: 'article_read', value: 21 }, 'INVALID_VALUE'],
    ['a value on a single-unit type', { type: 'match_checkin', value: 2 }, 'INVALID_VALUE'],
    [
      'an occurredAt older than the window',
      { type: 'match_checkin', occurredAt: '2026-11-18T14:59:59Z' },
      'OCCURRED_AT_OUT_OF_RANGE',
    ],
    [
      'an occurredAt far in the future',
      { type: 'match_checkin', occurredAt: '2026-11-25T15:05:01Z' },
      'OCCURRED_AT_OUT_OF_RANGE',
    ],
  ])('rejects %s', (_name, event, code) => {
    const checked = checkEvent({ id: 'e1', subject: 'fan', ...event }, 0, catalog, now, 168);
    expect(isRejection(checked) && checked.code).toBe(code);
  });

  it('accepts the edges of the window and defaults value and time', () => {
    const oldest = checkEvent(
      { id: 'a', subject: 'f', type: 'match_checkin', occurredAt: '2026-11-18T15:00:00Z' },
      0,
      catalog,
      now,
      168,
    );
    expect(isRejection(oldest)).toBe(false);
    const plain = checkEvent(
      { id: 'b', subject: 'f', type: 'match_checkin' },
      3,
      catalog,
      now,
      168,
    );
    expect(plain).toMatchObject({ index: 3, value: 1, occurredAt: now });
  });

  it('hashes what must match on a resend, and only that', () => {
    const base = { id: 'x', subject: 'fan', type: 'match_checkin' };
    expect(eventBodyHash(base)).toBe(eventBodyHash({ ...base, id: 'other', value: 1 }));
    expect(eventBodyHash(base)).not.toBe(eventBodyHash({ ...base, subject: 'fan2' }));
    expect(eventBodyHash(base)).not.toBe(eventBodyHash({ ...base, occurredAt: now.toISOString() }));
  });
});

describe('planFanEvents', () => {
  it('awards points per unit, each under its own key with the event as its source', () => {
    const plan = planFanEvents({
      catalog,
      clientId: 'svc',
      boards: [],
      state: empty,
      events: accept([
        { id: 'p1', type: 'prediction_correct' },
        { id: 'r1', type: 'article_read', value: 2 },
      ]),
      now,
    });
    expect(plan.awards.map((a) => [a.key, a.delta])).toEqual([
      ['event:svc:p1', 25],
      ['event:svc:r1', 2],
    ]);
    expect(plan.awards[0]!.source).toEqual({
      kind: 'event',
      type: 'prediction_correct',
      clientId: 'svc',
      eventId: 'p1',
    });
    expect(plan.recorded.map((r) => r.points)).toEqual([25, 2]);
  });

  it('rejects whole the event that would pass a cap, counting the batch’s earlier events and stored usage', () => {
    const day = periodAt('day', now);
    const state = { ...empty, usage: new Map([[usageKey('match_checkin', day), 3]]) };
    const plan = planFanEvents({
      catalog,
      clientId: 'svc',
      boards: [],
      state,
      events: accept([
        { id: 'c1', type: 'match_checkin' },
        { id: 'c2', type: 'match_checkin' },
        { id: 'c3', type: 'match_checkin' },
        { id: 'c4', type: 'match_checkin', occurredAt: '2026-11-24T20:00:00Z' },
      ]),
      now,
    });
    expect(
      [...plan.outcomes.values()].map((o) =>
        o.status === 'rejected' ? o.rejection.code : o.status,
      ),
    ).toEqual(['recorded', 'recorded', 'CAP_REACHED', 'recorded']);
    const reads = planFanEvents({
      catalog,
      clientId: 'svc',
      boards: [],
      state: empty,
      events: accept([
        { id: 'r1', type: 'article_read', value: 19 },
        { id: 'r2', type: 'article_read', value: 2 },
        { id: 'r3', type: 'article_read', value: 1 },
      ]),
      now,
    });
    expect(reads.recorded.map((r) => r.event.id)).toEqual(['r1', 'r3']);
  });

  it('completes the quests and streak milestones an event reaches, and reports them on that event', () => {
    const plan = planFanEvents({
      catalog,
      clientId: 'svc',
      boards: [],
      state: empty,
      events: accept([
        { id: 'c1', type: 'match_checkin' },
        { id: 'c2', type: 'match_checkin' },
      ]),
      now,
    });
    const second = plan.recorded[1]!;
    expect(second.questsCompleted).toEqual([
      { id: 'matchday_regular', period: '2026-W48', tier: 1, points: 30 },
    ]);
    expect(second.awards.map((a) => [a.key, a.delta])).toEqual([
      ['event:svc:c2', 10],
      ['quest:matchday_regular:2026-W48', 30],
    ]);
    expect(plan.awards.map((a) => a.key)).toEqual([
      'event:svc:c1',
      'event:svc:c2',
      'quest:matchday_regular:2026-W48',
    ]);
  });

  it('rejects whole the event whose awards would pass MAX_POINTS, its quest progress and cap use undone', () => {
    // Two check-ins complete matchday_regular (30): the second event earns 10 + 30.
    const state = { ...empty, balance: MAX_POINTS - 45 };
    const plan = planFanEvents({
      catalog,
      clientId: 'svc',
      state,
      boards: [],
      events: accept([
        { id: 'c1', type: 'match_checkin' },
        { id: 'c2', type: 'match_checkin' },
        { id: 'c3', type: 'match_checkin' },
        { id: 'r1', type: 'article_read', value: 2 },
      ]),
      now,
    });
    const outcomes = [...plan.outcomes.values()].map((o) =>
      o.status === 'rejected' ? o.rejection.code : o.status,
    );
    expect(outcomes).toEqual([
      'recorded',
      'POINTS_LIMIT_REACHED',
      'POINTS_LIMIT_REACHED',
      'recorded',
    ]);
    // Nothing of c2 or c3 stays: the weekly quest counts one check-in, no tier was reached.
    const quest = plan.quests.plan().writes.find((q) => q.questId === 'matchday_regular');
    expect(quest).toMatchObject({ progress: 1, tiersReached: 0 });
    expect(plan.quests.plan().reached.map((t) => t.key)).toEqual([]);
    expect(plan.awards.map((a) => [a.key, a.delta])).toEqual([
      ['event:svc:c1', 10],
      ['event:svc:r1', 2],
    ]);
    const streak = plan.streaks.plan();
    expect(streak.events.filter((e) => e.type === 'streak_extended')).toHaveLength(1);
    // A refused first check-in of the day leaves the streak and the weekly quest as stored.
    const first = planFanEvents({
      catalog,
      clientId: 'svc',
      state: { ...empty, balance: MAX_POINTS - 5 },
      boards: [],
      events: accept([
        { id: 'c1', type: 'match_checkin' },
        { id: 'r1', type: 'article_read', value: 2 },
      ]),
      now,
    });
    expect(first.recorded.map((r) => r.event.id)).toEqual(['r1']);
    expect(first.streaks.plan()).toEqual({ writes: [], events: [], milestones: [] });
    expect(first.quests.plan().writes.map((q) => q.questId)).not.toContain('matchday_regular');
    // Exactly at the limit is allowed.
    const exact = planFanEvents({
      catalog,
      clientId: 'svc',
      state: { ...empty, balance: MAX_POINTS - 25 },
      boards: [],
      events: accept([{ id: 'p1', type: 'prediction_correct' }]),
      now,
    });
    expect(exact.recorded.map((r) => r.event.id)).toEqual(['p1']);
  });

  it('checks every board entry the awards move, not only the balance', () => {
    // A season entry can hold more than the balance (an adjustment takes points off the balance only).
    const plan = planFanEvents({
      catalog,
      clientId: 'svc',
      state: { ...empty, balance: 1_000, entries: new Map([['week:2026-W48', MAX_POINTS - 20]]) },
      boards: ['all', 'week:2026-W48', 'month:2026-11'],
      events: accept([
        { id: 'p1', type: 'prediction_correct' },
        { id: 'r1', type: 'article_read', value: 5 },
      ]),
      now,
    });
    expect(
      [...plan.outcomes.values()].map((o) =>
        o.status === 'rejected' ? o.rejection.code : o.status,
      ),
    ).toEqual(['POINTS_LIMIT_REACHED', 'recorded']);
    // Without that board the same event is recorded.
    const elsewhere = planFanEvents({
      catalog,
      clientId: 'svc',
      state: { ...empty, balance: 1_000, entries: new Map([['week:2026-W48', MAX_POINTS - 20]]) },
      boards: ['all'],
      events: accept([{ id: 'p1', type: 'prediction_correct' }]),
      now,
    });
    expect(elsewhere.recorded).toHaveLength(1);
  });
});
