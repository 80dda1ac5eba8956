import { describe, expect, it } from 'vitest';
import { startOtherInstance, uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * What one sending service can do to the fans it names (docs/ACTIVITY.md): how far back its
 * events may be dated (EVENT_MAX_AGE_HOURS, a day by default), on both faces.
 */
const { app, database } = useTestApp();

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

async function send(token: string, events: unknown[]) {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

const codes = (results: any[]) => results.map((r) => r.error?.code ?? r.status);

describe('backdating', () => {
  it('accepts an occurredAt up to a day back by default and rejects an older one, on both faces', async () => {
    expect(app.config.activity.maxAgeHours).toBe(24);
    const service = await app.serviceToken('late-service');
    const fan = uniqueSubject('late');
    const events = [
      { id: `${fan}-23h`, subject: fan, type: 'match_checkin', occurredAt: hoursAgo(23.9) },
      { id: `${fan}-25h`, subject: fan, type: 'match_checkin', occurredAt: hoursAgo(25) },
      { id: `${fan}-8d`, subject: fan, type: 'match_checkin', occurredAt: hoursAgo(8 * 24) },
    ];
    const results = await send(service, events);
    expect(codes(results)).toEqual([
      'recorded',
      'OCCURRED_AT_OUT_OF_RANGE',
      'OCCURRED_AT_OUT_OF_RANGE',
    ]);
    expect(results[1].error.message).toContain('last 24 hours');
    const typed = await app.trpc(service).recordEvents.mutate({ events: events.slice(1) });
    expect(
      typed.data.results.map((r) => (r.status === 'rejected' ? r.error.code : r.status)),
    ).toEqual(['OCCURRED_AT_OUT_OF_RANGE', 'OCCURRED_AT_OUT_OF_RANGE']);
  });

  it('takes a longer window from EVENT_MAX_AGE_HOURS', async () => {
    const other = await startOtherInstance(database, {
      issuer: app.issuer,
      env: { EVENT_MAX_AGE_HOURS: '48' },
    });
    try {
      const service = await other.serviceToken('late-service');
      const fan = uniqueSubject('later');
      const response = await other.request('POST', '/api/events', {
        token: service,
        body: {
          events: [
            { id: `${fan}-25h`, subject: fan, type: 'match_checkin', occurredAt: hoursAgo(25) },
            { id: `${fan}-49h`, subject: fan, type: 'match_checkin', occurredAt: hoursAgo(49) },
          ],
        },
      });
      expect(codes(response.body.data.results)).toEqual(['recorded', 'OCCURRED_AT_OUT_OF_RANGE']);
    } finally {
      await other.close();
    }
  });
});
