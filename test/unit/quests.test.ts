import { describe, expect, it } from 'vitest';
import { EMPTY_PROFILE } from '../../src/domain/profile.js';
import { planQuestSync, QUESTS, type StoredQuest } from '../../src/domain/quests.js';

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
