/**
 * Named examples for openapi.json: one realistic request per write and one
 * realistic answer per success response, shaped like what the service sends
 * (Redocly checks each against its schema; test/platform/docs/openapi-examples.test.ts
 * sends every request example to the service). Swagger UI prefills "Try it
 * out" with the first request example, so each one succeeds for a new user.
 */

import { ADMIN_REQUEST_EXAMPLES, ADMIN_RESPONSE_EXAMPLES } from './openapi-examples-admin.js';

/** One named example, as OpenAPI's `examples` map holds it. */
export interface NamedExample {
  summary: string;
  value: unknown;
}

export type Examples = Record<string, NamedExample>;

const ALICE = '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35';
const BEN = '9a1e7c42-5d3b-4f8a-b6c1-2e0d8f4a7b19';
const CARA = 'c5d80b3f-1a6e-4b29-8f7d-6e3a9c1b2d40';

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

const entry = (
  userId: string,
  handle: string,
  name: string,
  points: number,
  rank: number,
  profileUrl: string | null = null,
) => ({ userId, handle, name, profileUrl, points, rank });

const ok = (name: string, summary: string, data: unknown): Examples => ({
  [name]: { summary, value: { success: true, data } },
});

/** The admin examples' definition: created, changed, then retired (in that order). */
const cupFinal = {
  kind: 'event_type',
  key: 'cup_final_checkin',
  title: 'Cup final check-in',
  description: 'At the stadium for the cup final.',
  points: 40,
  maxValue: 1,
  caps: { day: 1 },
};
const ADMIN_TIME = '2026-11-24T10:05:00.000Z';
const cupFinalVersion = (version: number, points: number, retired = false) => ({
  kind: 'event_type',
  key: 'cup_final_checkin',
  version,
  retired,
  definition: { ...cupFinal, points },
  changedBy: 'ops-console',
  changedAt: ADMIN_TIME,
});

/** Request body examples by operation id: the first one is what Swagger UI prefills. */
export const REQUEST_EXAMPLES: Record<string, Examples> = {
  ...ADMIN_REQUEST_EXAMPLES,
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
  recordEvents: {
    checkins: {
      summary: 'Two check-ins and an article from the fan app’s services',
      value: {
        events: [
          { id: 'checkin-8812', subject: 'auth0|5f7c1e2d9a', type: 'match_checkin' },
          {
            id: 'article-20261120-77',
            subject: 'auth0|5f7c1e2d9a',
            type: 'article_read',
            value: 2,
            occurredAt: '2026-11-20T18:30:00Z',
          },
          { id: 'checkin-8813', subject: 'auth0|81b3a0c4e7', type: 'match_checkin' },
        ],
      },
    },
  },
  reverseEvent: {
    reverse: { summary: 'Take back a check-in recorded by mistake', value: { id: 'checkin-8812' } },
  },
  adminCreateDefinition: {
    eventType: {
      summary: 'A check-in worth 40 points for the cup final, once a day',
      value: { definition: cupFinal },
    },
  },
  adminUpdateDefinition: {
    morePoints: {
      summary: 'Make it worth 50 (the version read was 1)',
      value: { expectedVersion: 1, definition: { ...cupFinal, points: 50 } },
    },
  },
  adminPatchDefinition: {
    points: {
      summary: 'Make it worth 60, everything else as it is (the version read was 2)',
      value: { expectedVersion: 2, definition: { points: 60 } },
    },
  },
  adminRetireDefinition: {
    retire: {
      summary: 'Retire it after the final (the version read was 3)',
      value: { expectedVersion: 3 },
    },
  },
  adminAdjustPoints: {
    goodwill: {
      summary: 'Make up for a check-in the gate scanner missed',
      value: { id: 'ticket-44120-goodwill', points: 10, reason: 'Gate 4 scanner was down' },
    },
  },
  adminSetBan: {
    ban: {
      summary: 'Ban a scripted account',
      value: { banned: true, reason: 'Scripted check-ins' },
    },
  },
  adminReverseEvent: {
    reverse: {
      summary: 'Take back a check-in another service recorded by mistake',
      value: { clientId: 'checkin-service', id: 'checkin-8813', reason: 'Duplicate scan' },
    },
  },
  adminCreateWebhookEndpoint: {
    create: {
      summary: 'The CRM receives quest completions and deletions',
      value: {
        url: 'https://crm.example.com/hooks/fan-events',
        eventTypes: ['quest_completed', 'account_deleted'],
        description: 'CRM: badges and erasure',
      },
    },
  },
  adminUpdateWebhookEndpoint: {
    pause: { summary: 'Pause it while the receiver is moved', value: { enabled: false } },
    filter: {
      summary: 'Also send points',
      value: { eventTypes: ['quest_completed', 'points_awarded', 'account_deleted'] },
    },
  },
  adminRotateWebhookEndpointSecret: {
    rotate: {
      summary: 'A new secret; the old one also signs for an hour',
      value: { overlapSeconds: 3600 },
    },
  },
};

const WEBHOOK_ENDPOINT = {
  id: '5b1f0c1e-9d8a-4c3e-a7b2-2f6e8d4c1a90',
  url: 'https://crm.example.com/hooks/fan-events',
  description: 'CRM: badges and erasure',
  eventTypes: ['quest_completed', 'account_deleted'],
  enabled: true,
  source: 'admin',
  previousSecretExpiresAt: null,
  createdAt: '2026-11-24T10:02:11.418Z',
  updatedAt: '2026-11-24T10:02:11.418Z',
  retiredAt: null,
};

/** Success response examples by operation id and status. */
export const RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
  ...ADMIN_RESPONSE_EXAMPLES,
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
  leaderboard: {
    '200': ok('page', 'Leaderboard page', {
      period: 'all',
      season: null,
      startsAt: null,
      nextResetAt: null,
      entries: [
        entry(BEN, 'benfromleeds', 'Ben Carter', 2450, 1),
        entry(CARA, 'cara_fc', 'Cara Duarte', 1900, 2, 'https://cara.example.org/'),
      ],
      nextCursor: 'eyJwIjoxOTAwfQ',
    }),
  },
  leaderboardSeasons: {
    '200': ok('seasons', 'Closed weeks, newest first', {
      period: 'week',
      entries: [
        {
          season: '2026-W47',
          startsAt: '2026-11-16T00:00:00.000Z',
          endsAt: '2026-11-23T00:00:00.000Z',
        },
        {
          season: '2026-W46',
          startsAt: '2026-11-09T00:00:00.000Z',
          endsAt: '2026-11-16T00:00:00.000Z',
        },
      ],
      nextCursor: '2026-W46',
    }),
  },
  recordEvents: {
    '200': ok('results', 'One result per event, in order', {
      results: [
        {
          id: 'checkin-8812',
          status: 'recorded',
          points: 10,
          balance: 185,
          questsCompleted: [],
          reversed: false,
        },
        {
          id: 'article-20261120-77',
          status: 'duplicate',
          points: 2,
          balance: 162,
          questsCompleted: [],
          reversed: false,
        },
        {
          id: 'checkin-8813',
          status: 'rejected',
          error: {
            code: 'CAP_REACHED',
            message: '"match_checkin" is capped at 5 per day (UTC) for each fan',
          },
        },
      ],
    }),
  },
  adminListWebhookEndpoints: {
    '200': ok('endpoints', 'The endpoint of WEBHOOK_URL and one made with the API', {
      endpoints: [
        {
          ...WEBHOOK_ENDPOINT,
          id: '0e7d2c55-3b41-4f6a-9c18-7a2b5e9d0f34',
          url: 'https://hooks.fan-app.example/events',
          description: 'WEBHOOK_URL',
          eventTypes: [],
          source: 'config',
          createdAt: '2026-11-20T08:00:03.120Z',
          updatedAt: '2026-11-20T08:00:03.120Z',
        },
        WEBHOOK_ENDPOINT,
      ],
    }),
  },
  adminCreateWebhookEndpoint: {
    // Always 201; the 200 the adapter documents too never comes.
    ...Object.fromEntries(
      ['200', '201'].map((status) => [
        status,
        ok('created', 'The endpoint and its secret, shown this once', {
          endpoint: WEBHOOK_ENDPOINT,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwC1mBVqdX0aE=',
        }),
      ]),
    ),
  },
  adminUpdateWebhookEndpoint: {
    '200': ok('paused', 'Paused: its events wait for it', {
      ...WEBHOOK_ENDPOINT,
      enabled: false,
      updatedAt: '2026-11-25T16:30:00.000Z',
    }),
  },
  adminRotateWebhookEndpointSecret: {
    '200': ok('rotated', 'The new secret; deliveries carry both signatures for an hour', {
      endpoint: {
        ...WEBHOOK_ENDPOINT,
        previousSecretExpiresAt: '2026-11-25T17:30:00.000Z',
        updatedAt: '2026-11-25T16:30:00.000Z',
      },
      secret: 'whsec_3Jq1mK0pV9yLr6TzW2cX8bN4sH7dF5gA1eU0iO9pQ2w=',
    }),
  },
  adminRetireWebhookEndpoint: {
    '200': ok('retired', 'Retired: nothing more is sent to it', {
      ...WEBHOOK_ENDPOINT,
      enabled: false,
      updatedAt: '2026-11-26T09:00:00.000Z',
      retiredAt: '2026-11-26T09:00:00.000Z',
    }),
  },
  reverseEvent: {
    '200': ok('reversed', 'The check-in’s 10 points taken back', {
      id: 'checkin-8812',
      status: 'reversed',
      points: -10,
      balance: 175,
    }),
  },
  adminListDefinitions: {
    '200': ok('definitions', 'The newest version of each definition', {
      definitions: [cupFinalVersion(2, 50)],
    }),
  },
  adminDefinitionHistory: {
    '200': ok('versions', 'Its versions, newest first: the last page', {
      versions: [
        cupFinalVersion(4, 60, true),
        cupFinalVersion(3, 60),
        cupFinalVersion(2, 50),
        cupFinalVersion(1, 40),
      ],
      nextCursor: null,
    }),
  },
  adminCreateDefinition: { '201': ok('created', 'Version 1', cupFinalVersion(1, 40)) },
  adminUpdateDefinition: { '200': ok('updated', 'Version 2', cupFinalVersion(2, 50)) },
  adminPatchDefinition: { '200': ok('patched', 'Version 3', cupFinalVersion(3, 60)) },
  adminRetireDefinition: {
    '200': ok('retired', 'Version 4, retired', cupFinalVersion(4, 60, true)),
  },
  adminAdjustPoints: {
    '200': ok('adjusted', '10 points added', {
      id: 'ticket-44120-goodwill',
      status: 'adjusted',
      points: 10,
      balance: 285,
    }),
  },
  adminSetBan: {
    '200': ok('banned', 'Banned: off every board', {
      userId: BEN,
      banned: true,
      bannedAt: ADMIN_TIME,
    }),
  },
  adminReverseEvent: {
    '200': ok('reversed', 'The check-in’s 10 points taken back', {
      id: 'checkin-8813',
      status: 'reversed',
      points: -10,
      balance: 240,
    }),
  },
  adminAuditLog: {
    '200': ok('audit', 'The newest changes', {
      entries: [
        {
          id: '118',
          actor: 'ops-console',
          action: 'fan.adjust',
          targetKind: 'fan',
          targetKey: ALICE,
          before: { balance: 275 },
          after: {
            balance: 285,
            points: 10,
            id: 'ticket-44120-goodwill',
            reason: 'Gate 4 scanner was down',
          },
          at: ADMIN_TIME,
        },
        {
          id: '117',
          actor: 'ops-console',
          action: 'definition.update',
          targetKind: 'definition',
          targetKey: 'event_type/cup_final_checkin',
          before: cupFinalVersion(1, 40),
          after: cupFinalVersion(2, 50),
          at: ADMIN_TIME,
        },
      ],
      nextCursor: '117',
    }),
  },

  leaderboardAroundMe: {
    '200': ok('aroundMe', 'Your rank with one neighbour on each side', {
      period: 'week',
      season: '2026-W48',
      startsAt: '2026-11-23T00:00:00.000Z',
      nextResetAt: '2026-11-30T00:00:00.000Z',
      entry: entry(ALICE, 'alice', 'Alice Martin', 275, 12, 'https://alice.example.com/'),
      above: [entry(CARA, 'cara_fc', 'Cara Duarte', 300, 11, 'https://cara.example.org/')],
      below: [entry(BEN, 'benfromleeds', 'Ben Carter', 250, 13)],
    }),
  },
};
