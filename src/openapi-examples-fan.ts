/**
 * Named examples of the signed-in fan's operations: the profile and
 * onboarding, the account (export, deletion), quests and the points ledger.
 */
import { ALICE, ok, type Examples } from './openapi-examples-common.js';

const CREATED = '2026-11-20T18:42:07.512Z';
const ONBOARDED = '2026-11-20T18:44:31.086Z';
const UPDATED = '2026-11-21T09:15:52.240Z';

const aliceProfile = {
  name: 'Alice Martin',
  handle: 'alice',
  location: 'London',
  favoriteSport: 'Football',
  favoriteTeam: 'Arsenal',
  favoritePlayer: 'Bukayo Saka',
  rivalTeam: 'Tottenham Hotspur',
  profileUrl: 'https://alice.example.com/',
};

const aliceUser = {
  id: ALICE,
  ...aliceProfile,
  points: 275,
  onboardedAt: ONBOARDED,
  createdAt: CREATED,
  updatedAt: UPDATED,
};

const quest = (
  id: string,
  title: string,
  description: string,
  points: number,
  progress: number,
  target: number,
  completedAt: string | null,
  repeats?: { period: string; resetsAt: string },
) => ({
  id,
  title,
  description,
  points,
  progress,
  target,
  status: completedAt ? 'completed' : 'in_progress',
  completedAt,
  period: repeats?.period ?? null,
  resetsAt: repeats?.resetsAt ?? null,
  tiersReached: completedAt ? 1 : 0,
  tiers: [{ target, points }],
});

const questsAfterOnboarding = [
  quest('welcome', 'Welcome aboard', 'Finish onboarding.', 100, 1, 1, ONBOARDED),
  quest('claim_handle', 'Claim your handle', 'Pick a unique handle.', 25, 1, 1, ONBOARDED),
  quest('pick_team', 'Pick your team', 'Set your favorite team.', 25, 1, 1, ONBOARDED),
  quest(
    'name_rival',
    'Name your rival',
    'Set the rival team you love to beat (PATCH /api/user).',
    25,
    0,
    1,
    null,
  ),
  quest(
    'complete_profile',
    'Complete your profile',
    'Fill in all 8 profile fields.',
    100,
    6,
    8,
    null,
  ),
  quest('daily_reader', 'Daily reader', 'Read 3 articles today.', 10, 1, 3, null, {
    period: '2026-11-20',
    resetsAt: '2026-11-21T00:00:00.000Z',
  }),
  quest(
    'matchday_regular',
    'Match-day regular',
    'Check in at 2 matches this week.',
    30,
    0,
    2,
    null,
    {
      period: '2026-W47',
      resetsAt: '2026-11-23T00:00:00.000Z',
    },
  ),
];

const matchdayStreak = {
  id: 'matchday_streak',
  title: 'Match-day streak',
  description: 'Check in at a match every week.',
  period: 'week',
  current: 2,
  best: 4,
  nextDeadline: '2026-11-30T00:00:00.000Z',
  countedThisPeriod: true,
  milestones: [
    { length: 3, points: 30 },
    { length: 5, points: 50 },
    { length: 10, points: 100 },
  ],
};

const onboardedProfile = { ...aliceProfile, favoritePlayer: null, rivalTeam: null };
const ledger = (id: string, delta: number, questId: string, balanceAfter: number) => ({
  id,
  delta,
  reason: 'quest_completed',
  questId,
  source: { kind: 'quest', questId, period: null, tier: 1 },
  balanceAfter,
  createdAt: ONBOARDED,
});
const onboardingLedger = [
  ledger('3', 25, 'pick_team', 150),
  ledger('2', 25, 'claim_handle', 125),
  ledger('1', 100, 'welcome', 100),
];

const onboarding = {
  user: {
    id: ALICE,
    ...onboardedProfile,
    points: 150,
    onboardedAt: ONBOARDED,
    createdAt: CREATED,
    updatedAt: ONBOARDED,
  },
  updatedProfile: { ...onboardedProfile, updatedAt: ONBOARDED },
  leaderboardEntry: {
    userId: ALICE,
    handle: 'alice',
    name: 'Alice Martin',
    profileUrl: 'https://alice.example.com/',
    points: 150,
    rank: 12,
  },
  pointsHistory: { balance: 150, entries: onboardingLedger },
  questSync: {
    pointsAwarded: 150,
    completed: questsAfterOnboarding.slice(0, 3),
    quests: questsAfterOnboarding,
  },
};

/** Request bodies of the fan operations, by operation id. */
export const FAN_REQUEST_EXAMPLES: Record<string, Examples> = {
  updateUser: {
    editProfile: {
      summary: 'Add a favourite player and a rival team',
      value: { favoritePlayer: 'Bukayo Saka', rivalTeam: 'Tottenham Hotspur' },
    },
    clearField: {
      summary: 'Clear a field (null or an empty string)',
      value: { location: null },
    },
  },
  onboardProfile: {
    // The prefilled example claims no handle: handles are unique, so a fixed
    // one would answer 409 HANDLE_TAKEN to every reader but the first.
    onboard: {
      summary: 'Onboard with a team and a profile page',
      value: {
        name: 'Alice Martin',
        location: 'London',
        favoriteSport: 'Football',
        favoriteTeam: 'Arsenal',
        profileUrl: 'https://alice.example.com/',
      },
    },
    withHandle: {
      summary:
        'Also claim a handle: replace it with your own (one someone holds is 409 HANDLE_TAKEN)',
      value: { name: 'Alice Martin', handle: '@pick_your_own', favoriteTeam: 'Arsenal' },
    },
  },
};

/** Success responses of the fan operations, by operation id and status. */
export const FAN_RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
  updateUser: { '200': ok('updated', 'Updated the profile; the full user', aliceUser) },
  onboardProfile: {
    '200': ok('alreadyOnboarded', 'Already onboarded: fields applied, nothing awarded twice', {
      ...onboarding,
      pointsHistory: { balance: 150, entries: onboardingLedger },
      questSync: { pointsAwarded: 0, completed: [], quests: questsAfterOnboarding },
    }),
    '201': ok(
      'onboarded',
      'Onboarded by this call: three quests completed, 150 points',
      onboarding,
    ),
  },
  me: { '200': ok('user', 'Signed-in user, onboarded', aliceUser) },
  exportAccount: {
    '200': ok('export', 'Everything held about Alice', {
      exportedAt: '2026-11-23T20:41:09.377Z',
      identity: { issuer: 'https://login.fan-app.example/', subject: 'auth0|5f7c1e2d9a' },
      user: aliceUser,
      handleHistory: [
        { oldHandle: null, newHandle: 'ally', kind: 'first', changedAt: CREATED },
        { oldHandle: 'ally', newHandle: 'alice', kind: 'change', changedAt: ONBOARDED },
      ],
      handleReservations: [{ handle: 'ally', reservedUntil: '2026-12-04T18:44:31.086Z' }],
      pointsLedger: {
        balance: 275,
        entries: [
          ledger('1', 100, 'welcome', 100),
          ledger('2', 25, 'claim_handle', 125),
          ledger('3', 25, 'pick_team', 150),
          { ...ledger('4', 25, 'name_rival', 175), createdAt: UPDATED },
          { ...ledger('5', 100, 'complete_profile', 275), createdAt: UPDATED },
        ],
      },
      // Every profile quest done: the ledger above awarded all five.
      quests: questsAfterOnboarding.map((q) =>
        q.completedAt || q.period
          ? q
          : {
              ...q,
              progress: q.target,
              tiersReached: 1,
              status: 'completed',
              completedAt: UPDATED,
            },
      ),
      streaks: [
        { ...matchdayStreak, current: 0, best: 0, nextDeadline: null, countedThisPeriod: false },
      ],
      activity: [],
      boards: [
        { period: 'all', season: null, points: 275, rank: 12 },
        { period: 'week', season: '2026-W48', points: 125, rank: 3 },
        { period: 'month', season: '2026-11', points: 275, rank: 9 },
      ],
    }),
  },
  deleteAccount: {
    '200': ok('deleted', 'The account is erased', {
      deleted: true,
      deletedAt: '2026-11-23T20:45:12.904Z',
    }),
  },
  quests: {
    '200': ok('quests', 'Quests with progress, and streaks', {
      quests: questsAfterOnboarding,
      streaks: [matchdayStreak],
    }),
  },
  pointsHistory: {
    '200': ok('page', 'Ledger page, newest first', {
      entries: [
        {
          id: '5',
          delta: 10,
          reason: 'event_recorded',
          questId: null,
          source: {
            kind: 'event',
            type: 'match_checkin',
            clientId: 'checkin-service',
            eventId: 'checkin-8812',
          },
          balanceAfter: 185,
          createdAt: UPDATED,
        },
        { ...ledger('4', 25, 'name_rival', 175), createdAt: UPDATED },
        ...onboardingLedger.slice(0, 1),
      ],
      nextCursor: 'eyJpZCI6IjMifQ',
    }),
  },
};
