/**
 * Named examples of the operations for the fan app's other services:
 * recording events and reversing one.
 */
import { ok, type Examples } from './openapi-examples-common.js';

/** Request bodies of the events operations, by operation id. */
export const EVENTS_REQUEST_EXAMPLES: Record<string, Examples> = {
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
};

/** Success responses of the events operations, by operation id and status. */
export const EVENTS_RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
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
  reverseEvent: {
    '200': ok('reversed', 'The check-in’s 10 points taken back', {
      id: 'checkin-8812',
      status: 'reversed',
      points: -10,
      balance: 175,
    }),
  },
};
