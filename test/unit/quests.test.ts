import { describe, expect, it } from 'vitest';
import { EMPTY_PROFILE } from '../../src/domain/profile.js';
import {
  advanceQuest,
  instanceKey,
  planQuestSync,
  PROGRESS_CEILING,
  questAwardKey,
  questInstance,
  questProgress,
  QuestBook,
  type StoredQuest,
} from '../../src/domain/quests.js';
import { defaultCatalog } from '../helpers/catalog.js';

const now = new Date('2026-11-22T12:00:00Z');
const catalog = defaultCatalog();
const full = {
  name: 'Ann',
  handle: 'ann',
  location: 'Rome',
  favoriteSport: 'Football',
  favoriteTeam: 'Roma',
  favoritePlayer: 'Totti',
  rivalTeam: 'Lazio',
  profileUrl: 'https://example.com',
};
const PROFILE_QUESTS = ['welcome', 'claim_handle', 'pick_team', 'name_rival', 'complete_profile'];

function storedOf(quests: { state: StoredQuest }[]): Map<string, StoredQuest> {
  return new Map(quests.map(({ state }) => [instanceKey(state.questId, state.period), state]));
}

function byId(quests: ReturnType<typeof planQuestSync>['quests'], id: string) {
  return quests.find((view) => view.instance.quest.definition.key === id)!;
}

describe('the default catalog’s profile quests', () => {
  it('are today’s five quests, in order, with their points and targets', () => {
    const profile = catalog.quests.filter((quest) => PROFILE_QUESTS.includes(quest.definition.key));
    expect(
      profile.map(({ definition: d }) => [
        d.key,
        d.repeat,
        d.tiers.map((t) => [t.target, t.points]),
      ]),
    ).toEqual([
      ['welcome', 'once', [[1, 100]]],
      ['claim_handle', 'once', [[1, 25]]],
      ['pick_team', 'once', [[1, 25]]],
      ['name_rival', 'once', [[1, 25]]],
      ['complete_profile', 'once', [[8, 100]]],
    ]);
    expect(catalog.quests.slice(0, 5).map((quest) => quest.definition.key)).toEqual(PROFILE_QUESTS);
  });

  it('award under the keys they always had (so nobody is awarded twice after the upgrade)', () => {
    const plan = planQuestSync(catalog, { profile: full, onboarded: true }, new Map(), now);
    expect(plan.reached.map((tier) => tier.key)).toEqual(PROFILE_QUESTS.map((id) => `quest:${id}`));
    expect(plan.reached.map((tier) => tier.points)).toEqual([100, 25, 25, 25, 100]);
  });

  it('tie welcome to onboarding and the rest to profile fields', () => {
    const plan = planQuestSync(catalog, { profile: full, onboarded: false }, new Map(), now);
    expect(plan.reached.map((tier) => tier.instance.quest.definition.key)).toEqual([
      'claim_handle',
      'pick_team',
      'name_rival',
      'complete_profile',
    ]);
    expect(byId(plan.quests, 'welcome').state.status).toBe('in_progress');
  });

  it('complete everything earned at onboarding, once, and write only profile quests', () => {
    const first = planQuestSync(catalog, { profile: full, onboarded: true }, new Map(), now);
    expect(first.reached).toHaveLength(5);
    expect(first.writes.map((row) => row.questId)).toEqual(PROFILE_QUESTS);
    const second = planQuestSync(
      catalog,
      { profile: full, onboarded: true },
      storedOf(first.quests),
      now,
    );
    expect(second.reached).toEqual([]);
    expect(second.writes).toEqual([]);
  });

  it('track partial progress and keep completion sticky, with its time', () => {
    const partial = { ...EMPTY_PROFILE, name: 'Ann', handle: 'ann', favoriteTeam: 'Roma' };
    const plan = planQuestSync(catalog, { profile: partial, onboarded: true }, new Map(), now);
    expect(byId(plan.quests, 'complete_profile').state).toMatchObject({
      progress: 3,
      target: 8,
      status: 'in_progress',
      tiersReached: 0,
    });
    const later = new Date(now.getTime() + 86_400_000);
    const cleared = planQuestSync(
      catalog,
      { profile: { ...partial, favoriteTeam: null }, onboarded: true },
      storedOf(plan.quests),
      later,
    );
    expect(byId(cleared.quests, 'pick_team').state).toMatchObject({
      status: 'completed',
      progress: 0,
      completedAt: now,
    });
    expect(cleared.reached).toEqual([]);
  });
});

describe('questProgress (read-only view)', () => {
  it('before onboarding shows progress from the profile but completes nothing', () => {
    const views = questProgress(catalog, { profile: full, onboarded: false }, new Map(), now);
    expect(
      views
        .slice(0, 5)
        .map(({ instance, state }) => [
          instance.quest.definition.key,
          state.progress,
          state.status,
        ]),
    ).toEqual([
      ['welcome', 0, 'in_progress'],
      ['claim_handle', 1, 'in_progress'],
      ['pick_team', 1, 'in_progress'],
      ['name_rival', 1, 'in_progress'],
      ['complete_profile', 8, 'in_progress'],
    ]);
    expect(views.every((view) => view.state.completedAt === null)).toBe(true);
  });

  it('shows repeating quests in the period holding now, with their stored progress', () => {
    const stored = new Map<string, StoredQuest>([
      [
        instanceKey('daily_reader', '2026-11-22'),
        {
          questId: 'daily_reader',
          period: '2026-11-22',
          progress: 2,
          target: 3,
          tiersReached: 0,
          status: 'in_progress',
          completedAt: null,
        },
      ],
    ]);
    const today = questProgress(catalog, { profile: EMPTY_PROFILE, onboarded: true }, stored, now);
    expect(byId(today, 'daily_reader').state).toMatchObject({ period: '2026-11-22', progress: 2 });
    expect(byId(today, 'daily_reader').instance.span?.endsAt).toEqual(
      new Date('2026-11-23T00:00:00Z'),
    );
    const tomorrow = new Date('2026-11-23T00:00:00Z');
    const next = questProgress(
      catalog,
      { profile: EMPTY_PROFILE, onboarded: true },
      stored,
      tomorrow,
    );
    expect(byId(next, 'daily_reader').state).toMatchObject({ period: '2026-11-23', progress: 0 });
  });
});

describe('tiers and repeats', () => {
  const tiered = defaultCatalog([
    {
      kind: 'quest',
      key: 'reader_tiers',
      title: 'Reader',
      repeat: 'week',
      goal: { kind: 'events', eventType: 'article_read', measure: 'sum' },
      tiers: [
        { target: 5, points: 5 },
        { target: 10, points: 10 },
        { target: 20, points: 25 },
      ],
    },
  ]);
  const quest = tiered.quests.find((q) => q.definition.key === 'reader_tiers')!;

  it('reaches every tier passed, in order, each under its own key', () => {
    const instance = questInstance(quest, now);
    const empty: StoredQuest = {
      questId: 'reader_tiers',
      period: instance.span!.id,
      progress: 0,
      target: 5,
      tiersReached: 0,
      status: 'in_progress',
      completedAt: null,
    };
    const { after, reached } = advanceQuest(instance, empty, 12, now);
    expect(reached.map((tier) => [tier.key, tier.points])).toEqual([
      ['quest:reader_tiers:2026-W47', 5],
      ['quest:reader_tiers:2026-W47:t2', 10],
    ]);
    expect(after).toMatchObject({
      progress: 12,
      target: 20,
      tiersReached: 2,
      status: 'in_progress',
    });
    const done = advanceQuest(instance, after, 25, now);
    expect(done.reached.map((tier) => tier.key)).toEqual(['quest:reader_tiers:2026-W47:t3']);
    expect(done.after).toMatchObject({ status: 'completed', completedAt: now, target: 20 });
    // A fall (a reversed event) keeps what was reached.
    const fell = advanceQuest(instance, done.after, 3, now);
    expect(fell.reached).toEqual([]);
    expect(fell.after).toMatchObject({ progress: 3, tiersReached: 3, status: 'completed' });
    // Progress is stored in an integer column: a sum goal's total stops at the ceiling.
    const huge = advanceQuest(instance, done.after, PROGRESS_CEILING + 1_000_000, now);
    expect(huge.after.progress).toBe(PROGRESS_CEILING);
    expect(PROGRESS_CEILING).toBeLessThan(2 ** 31);
  });

  it('keys awards by period, so a repeating quest earns again next period and never twice in one', () => {
    expect(questAwardKey('daily_reader', '2026-11-22', 0)).toBe('quest:daily_reader:2026-11-22');
    expect(questAwardKey('welcome', '', 0)).toBe('quest:welcome');
    const book = new QuestBook(tiered, new Map());
    book.recordEvent('article_read', 3, now, now);
    book.recordEvent('article_read', 3, now, now);
    const nextDay = new Date('2026-11-23T09:00:00Z');
    book.recordEvent('article_read', 3, nextDay, nextDay);
    const daily = book
      .plan()
      .reached.filter((tier) => tier.instance.quest.definition.key === 'daily_reader');
    expect(daily.map((tier) => tier.key)).toEqual([
      'quest:daily_reader:2026-11-22',
      'quest:daily_reader:2026-11-23',
    ]);
  });

  it('counts events or sums values, as the goal says', () => {
    const book = new QuestBook(catalog, new Map());
    book.recordEvent('match_checkin', 1, now, now);
    book.recordEvent('article_read', 2, now, now);
    const views = book.views(now);
    expect(byId(views, 'matchday_regular').state.progress).toBe(1);
    expect(byId(views, 'daily_reader').state.progress).toBe(2);
  });

  it('completes a quest of quests when its listed one-time quests are completed', () => {
    const withMeta = defaultCatalog([
      {
        kind: 'quest',
        key: 'all_set',
        title: 'All set',
        goal: { kind: 'quests', quests: ['claim_handle', 'pick_team'] },
        tiers: [{ target: 2, points: 50 }],
      },
    ]);
    const half = planQuestSync(
      withMeta,
      { profile: { ...EMPTY_PROFILE, handle: 'ann' }, onboarded: true },
      new Map(),
      now,
    );
    expect(half.reached.map((t) => t.instance.quest.definition.key)).not.toContain('all_set');
    const rest = planQuestSync(
      withMeta,
      { profile: { ...EMPTY_PROFILE, handle: 'ann', favoriteTeam: 'Roma' }, onboarded: true },
      storedOf(half.quests),
      now,
    );
    expect(rest.reached.map((t) => t.key)).toEqual(['quest:pick_team', 'quest:all_set']);
  });
});
