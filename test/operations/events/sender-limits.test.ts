import { describe, expect, it } from 'vitest';
import { startOtherInstance, uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * What one sending service can do to the fans it names (docs/ACTIVITY.md): how far back its
 * events may be dated (EVENT_MAX_AGE_HOURS, a day by default), how many fans it may create
 * (EVENT_NEW_SUBJECTS_PER_MINUTE) and whether it may create any (EVENT_UNKNOWN_SUBJECTS), on both
 * faces.
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

describe('fans the service has not seen', () => {
  /** A fan who signed in: their account exists before any event names them. */
  async function signedIn() {
    const subject = uniqueSubject('known');
    expect(
      (await app.request('GET', '/api/user', { token: await app.token(subject) })).status,
    ).toBe(200);
    return subject;
  }

  async function accountsOf(subjects: string[]) {
    const rows = await app.db
      .selectFrom('users')
      .select('subject')
      .where('subject', 'in', subjects)
      .execute();
    return rows.map((row) => row.subject).sort();
  }

  it('creates at most EVENT_NEW_SUBJECTS_PER_MINUTE per client a minute, the first in batch order; known fans never count', async () => {
    const other = await startOtherInstance(database, {
      issuer: app.issuer,
      env: { EVENT_NEW_SUBJECTS_PER_MINUTE: '3' },
    });
    try {
      const known = await signedIn();
      const fresh = Array.from({ length: 5 }, () => uniqueSubject('ghost'));
      const event = (subject: string, n = 1) => ({
        id: `${subject}-${n}`,
        subject,
        type: 'prediction_correct',
      });
      const token = await other.serviceToken('typo-service');
      const first = await other.request('POST', '/api/events', {
        token,
        body: { events: [event(fresh[0]!), event(known), ...fresh.slice(1).map((s) => event(s))] },
      });
      expect(first.status, first.text).toBe(200);
      expect(codes(first.body.data.results)).toEqual([
        'recorded',
        'recorded',
        'recorded',
        'recorded',
        'NEW_SUBJECT_LIMIT',
        'NEW_SUBJECT_LIMIT',
      ]);
      expect(first.body.data.results[4].error.message).toContain('3 new fans');
      expect(await accountsOf(fresh)).toEqual(fresh.slice(0, 3).sort());

      // The same minute: no new fan from this client on either face, known fans (new ones too) as usual.
      const again = await other.trpc(token).recordEvents.mutate({
        events: [event(fresh[4]!, 2), event(known, 2), event(fresh[0]!, 2)],
      });
      expect(
        again.data.results.map((r) => (r.status === 'rejected' ? r.error.code : r.status)),
      ).toEqual(['NEW_SUBJECT_LIMIT', 'recorded', 'recorded']);
      // Another client has its own count.
      const elsewhere = await other.request('POST', '/api/events', {
        token: await other.serviceToken('other-service'),
        body: { events: [event(fresh[4]!, 3)] },
      });
      expect(codes(elsewhere.body.data.results)).toEqual(['recorded']);
      expect(await accountsOf(fresh)).toEqual([...fresh.slice(0, 3), fresh[4]!].sort());
      expect(await accountsOf([fresh[3]!])).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('rejects events for a subject with no account when EVENT_UNKNOWN_SUBJECTS=reject, on both faces', async () => {
    const other = await startOtherInstance(database, {
      issuer: app.issuer,
      env: { EVENT_UNKNOWN_SUBJECTS: 'reject' },
    });
    try {
      const known = await signedIn();
      const typo = `${known}x`;
      const token = await other.serviceToken('strict-service');
      const events = [
        { id: `${typo}-1`, subject: typo, type: 'match_checkin' },
        { id: `${known}-1`, subject: known, type: 'match_checkin' },
      ];
      const response = await other.request('POST', '/api/events', { token, body: { events } });
      expect(response.status, response.text).toBe(200);
      expect(codes(response.body.data.results)).toEqual(['UNKNOWN_SUBJECT', 'recorded']);
      const typed = await other.trpc(token).recordEvents.mutate({ events });
      expect(
        typed.data.results.map((r) => (r.status === 'rejected' ? r.error.code : r.status)),
      ).toEqual(['UNKNOWN_SUBJECT', 'duplicate']);
      expect(await accountsOf([typo, known])).toEqual([known]);
      // The default instance still creates it.
      const lenient = await send(await app.serviceToken('strict-service'), [events[0]]);
      expect(codes(lenient)).toEqual(['recorded']);
      expect(await accountsOf([typo])).toEqual([typo]);
    } finally {
      await other.close();
    }
  });
});
