/**
 * Named examples of the admin lookups and the delivery log (finding a fan,
 * a fan's story, an endpoint's deliveries, redelivery, a test event), which
 * src/openapi-examples.ts merges into its maps.
 */
import { ok, type Examples } from './openapi-examples-common.js';

const FAN = '9a1e7c42-5d3b-4f8a-b6c1-2e0d8f4a7b19';
const ISSUER = 'https://id.fan-app.example/';

const ben = {
  id: FAN,
  issuer: ISSUER,
  subject: 'auth0|6571f2c9e4b0a1d2',
  handle: 'benfromleeds',
  name: 'Ben Carter',
  points: 250,
  onboardedAt: '2026-11-21T19:02:44.310Z',
  bannedAt: null,
  createdAt: '2026-11-21T19:01:58.904Z',
};

const checkin = {
  clientId: 'checkin-service',
  eventId: 'checkin-8812',
  type: 'match_checkin',
  value: 1,
  occurredAt: '2026-11-25T19:30:00.000Z',
  points: 10,
  balance: 250,
  questsCompleted: [],
  recordedAt: '2026-11-25T19:30:01.204Z',
  reversedAt: null,
};

const ledgerEntry = {
  id: '5521',
  delta: 10,
  reason: 'event_recorded',
  questId: null,
  source: {
    kind: 'event',
    type: 'match_checkin',
    clientId: 'checkin-service',
    eventId: 'checkin-8812',
  },
  balanceAfter: 250,
  createdAt: '2026-11-25T19:30:01.204Z',
};

const delivery = (
  id: string,
  attempt: number,
  outcome: string,
  statusCode: number | null,
  error: string | null,
  at: string,
) => ({
  id,
  eventId: '48213',
  eventType: 'quest_completed',
  attempt,
  outcome,
  statusCode,
  error,
  durationMs: statusCode === null ? 10_000 : 84,
  at,
});

export const ADMIN_REQUEST_EXAMPLES: Record<string, Examples> = {
  adminTestWebhookEndpoint: {
    test: { summary: 'Wait up to 10 s for the receiver', value: { timeoutSeconds: 10 } },
  },
  adminRedeliverWebhook: {
    again: { summary: 'Send event 48213 once more', value: { eventId: '48213' } },
  },
};

export const ADMIN_RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
  adminFindFans: {
    '200': ok('found', 'Found by handle, and a fan whose handle starts with it', {
      fans: [
        { ...ben, matchedBy: ['handle'] },
        {
          ...ben,
          id: 'c5d80b3f-1a6e-4b29-8f7d-6e3a9c1b2d40',
          subject: 'auth0|6571f9a0e4b0a1d7',
          handle: 'benfromleeds2',
          name: 'Benedict Lee',
          points: 40,
          matchedBy: ['handle_prefix'],
        },
      ],
    }),
  },
  adminFan: {
    '200': ok('story', 'Ben: on every board, a check-in, the welcome quest done', {
      fan: ben,
      profile: {
        name: 'Ben Carter',
        handle: 'benfromleeds',
        location: 'Leeds',
        favoriteSport: 'Football',
        favoriteTeam: 'Leeds United',
        favoritePlayer: null,
        rivalTeam: null,
        profileUrl: null,
      },
      boards: [
        { period: 'all', season: null, points: 250, hidden: false, rank: 13, teamRank: 2 },
        { period: 'week', season: '2026-W48', points: 35, hidden: false, rank: 40, teamRank: 3 },
      ],
      quests: [
        {
          id: 'welcome',
          title: 'Welcome aboard',
          description: 'Finish onboarding',
          points: 100,
          progress: 1,
          target: 1,
          status: 'completed',
          completedAt: '2026-11-21T19:02:44.310Z',
          period: null,
          resetsAt: null,
          tiersReached: 1,
          tiers: [{ target: 1, points: 100 }],
        },
      ],
      streaks: [],
      ledger: { entries: [ledgerEntry], nextCursor: '5521' },
      events: { entries: [checkin], nextCursor: null },
    }),
  },
  adminFanPoints: {
    '200': ok('ledger', 'The newest entry, more to come', {
      entries: [ledgerEntry],
      nextCursor: '5521',
    }),
  },
  adminFanEvents: {
    '200': ok('events', 'The one check-in recorded', { entries: [checkin], nextCursor: null }),
  },
  adminWebhookDeliveries: {
    '200': ok('deliveries', 'A retry that worked after a timeout', {
      entries: [
        delivery('90412', 2, 'delivered', 200, null, '2026-11-25T19:30:13.552Z'),
        delivery('90377', 1, 'failed', null, 'timeout', '2026-11-25T19:30:11.470Z'),
      ],
      nextCursor: null,
    }),
  },
  adminRedeliverWebhook: {
    '200': ok('queued', 'Queued as the third attempt', {
      eventId: '48213',
      status: 'queued',
      attempt: 3,
      nextAt: '2026-11-26T09:12:00.000Z',
    }),
  },
  adminOverview: {
    '200': ok('hour', 'The last hour (its 61 buckets shortened here to the last three)', {
      window: 'hour',
      from: '2026-12-02T09:12:30.120Z',
      to: '2026-12-02T10:12:30.120Z',
      bucketSeconds: 60,
      buckets: ['2026-12-02T10:10:00.000Z', '2026-12-02T10:11:00.000Z', '2026-12-02T10:12:00.000Z'],
      events: [
        { type: 'match_checkin', counts: [41, 57, 12] },
        { type: 'article_read', counts: [3, 0, 2] },
      ],
      points: [425, 570, 122],
      activeFans: 812,
      rejections: {
        since: '2026-12-02T06:00:04.511Z',
        byCode: [
          { code: 'CAP_REACHED', count: 37 },
          { code: 'UNKNOWN_EVENT_TYPE', count: 2 },
        ],
      },
      outboxLagSeconds: 0.4,
      webhooks: {
        delivered: 1180,
        failed: 3,
        gaveUp: 0,
        queued: 2,
        endpointsEnabled: 2,
        endpointsDisabled: 0,
      },
    }),
  },
  adminLeaderboard: {
    '200': ok('week', 'This week’s top (two entries of the hundred shown)', {
      board: 'week',
      team: null,
      period: 'week',
      season: '2026-W49',
      startsAt: '2026-11-30T00:00:00.000Z',
      nextResetAt: '2026-12-07T00:00:00.000Z',
      entries: [
        {
          userId: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
          handle: 'alice',
          name: 'Alice Moreno',
          profileUrl: null,
          points: 480,
          rank: 1,
        },
        {
          userId: FAN,
          handle: 'benfromleeds',
          name: 'Ben Carter',
          profileUrl: null,
          points: 250,
          rank: 2,
        },
      ],
    }),
  },
  adminLeaderboardSeasons: {
    '200': ok('weeks', 'The week in progress and the last closed one', {
      period: 'week',
      open: {
        season: '2026-W49',
        startsAt: '2026-11-30T00:00:00.000Z',
        endsAt: '2026-12-07T00:00:00.000Z',
      },
      entries: [
        {
          season: '2026-W48',
          startsAt: '2026-11-23T00:00:00.000Z',
          endsAt: '2026-11-30T00:00:00.000Z',
        },
      ],
      nextCursor: null,
    }),
  },
  adminTestWebhookEndpoint: {
    '200': ok('delivered', 'The receiver answered 204', {
      id: '90433',
      eventId: '48390',
      eventType: 'webhook_test',
      attempt: 1,
      outcome: 'delivered',
      statusCode: 204,
      error: null,
      durationMs: 61,
      at: '2026-11-26T09:12:04.118Z',
    }),
  },
};
