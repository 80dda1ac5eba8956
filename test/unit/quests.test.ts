import { describe, expect, it } from 'vitest';
import { EMPTY_PROFILE } from '../../src/domain/profile.js';
import { planQuestSync, questProgress, QUESTS, type StoredQuest } from '../../src/domain/quests.js';

const now = new Date('2026-11-22T12:00:00Z');
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

describe('quests', () => {
  it('defines the contract quests with their points', () => {
    expect(Object.fromEntries(QUESTS.map((q) => [q.id, q.points]))).toMatchObject({
      welcome: 100,
      claim_handle: 25,
      pick_team: 25,
      name_rival: 25,
      complete_profile: 100,
    });
    expect(QUESTS.find((q) => q.id === 'complete_profile')!.target).toBe(8);
  });

  it('ties welcome to onboarding and the rest to profile fields', () => {
    const plan = planQuestSync({ profile: full, onboarded: false }, new Map(), now);
    expect(plan.newlyCompleted.map((q) => q.id)).toEqual([
      'claim_handle',
      'pick_team',
      'name_rival',
      'complete_profile',
    ]);
    // welcome is the onboarding quest: it needs onboarded = true
    expect(plan.quests.find((q) => q.quest.id === 'welcome')!.state.status).toBe('in_progress');
  });

  it('completes everything earned at onboarding, once', () => {
    const first = planQuestSync({ profile: full, onboarded: true }, new Map(), now);
    expect(first.newlyCompleted).toHaveLength(5);
    const stored = new Map<string, StoredQuest>(first.quests.map((q) => [q.quest.id, q.state]));
    const second = planQuestSync({ profile: full, onboarded: true }, stored, now);
    expect(second.newlyCompleted).toEqual([]);
    expect(second.writes).toEqual([]);
  });

  it('tracks partial progress and keeps completion sticky', () => {
    const partial = { ...EMPTY_PROFILE, name: 'Ann', handle: 'ann', favoriteTeam: 'Roma' };
    const plan = planQuestSync({ profile: partial, onboarded: true }, new Map(), now);
    const complete = plan.quests.find((q) => q.quest.id === 'complete_profile')!;
    expect(complete.state).toMatchObject({ progress: 3, target: 8, status: 'in_progress' });

    const stored = new Map<string, StoredQuest>(plan.quests.map((q) => [q.quest.id, q.state]));
    const cleared = planQuestSync(
      { profile: { ...partial, favoriteTeam: null }, onboarded: true },
      stored,
      now,
    );
    const pickTeam = cleared.quests.find((q) => q.quest.id === 'pick_team')!;
    expect(pickTeam.state).toMatchObject({ status: 'completed', progress: 0 });
    expect(cleared.newlyCompleted).toEqual([]);
  });
});

describe('questProgress (read-only view)', () => {
  it('before onboarding shows progress from the profile but completes nothing', () => {
    const views = questProgress({ profile: full, onboarded: false }, new Map(), now);
    expect(views.map((view) => [view.quest.id, view.state.progress, view.state.status])).toEqual([
      ['welcome', 0, 'in_progress'],
      ['claim_handle', 1, 'in_progress'],
      ['pick_team', 1, 'in_progress'],
      ['name_rival', 1, 'in_progress'],
      ['complete_profile', 8, 'in_progress'],
    ]);
    expect(views.every((view) => view.state.completedAt === null)).toBe(true);
  });

  it('after onboarding is the stored state, completion sticky', () => {
    const completedAt = new Date('2026-11-01T00:00:00Z');
    const stored = new Map<string, StoredQuest>([
      ['welcome', { questId: 'welcome', progress: 1, target: 1, status: 'completed', completedAt }],
      [
        'pick_team',
        { questId: 'pick_team', progress: 1, target: 1, status: 'completed', completedAt },
      ],
    ]);
    const views = questProgress({ profile: EMPTY_PROFILE, onboarded: true }, stored, now);
    const pickTeam = views.find((view) => view.quest.id === 'pick_team')!;
    expect(pickTeam.state).toEqual({
      questId: 'pick_team',
      progress: 0,
      target: 1,
      status: 'completed',
      completedAt,
    });
    expect(views.find((view) => view.quest.id === 'claim_handle')!.state.status).toBe(
      'in_progress',
    );
  });
});
