/**
 * Named examples of the webhook endpoint operations: listing, creating,
 * updating, rotating the secret of, and retiring an endpoint.
 */
import { ok, type Examples } from './openapi-examples-common.js';

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

/** Request bodies of the webhook endpoint operations, by operation id. */
export const WEBHOOK_REQUEST_EXAMPLES: Record<string, Examples> = {
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

/** Success responses of the webhook endpoint operations, by operation id and status. */
export const WEBHOOK_RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
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
};
