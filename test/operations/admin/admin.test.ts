import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { consistencyProblems, fullSortRanks } from '../../helpers/consistency.js';
import {
  startOtherInstance,
  uniqueSubject,
  useTestApp,
  type TestApp,
} from '../../helpers/test-app.js';
import { ROUTES } from '../../helpers/routes.js';

/**
 * The admin API (docs/CATALOG.md): definitions as versioned data changed at
 * run time, adjustments, bans with exact ranks, reversals of any client's
 * events, the audit log; every operation refused without the admin scope.
 */
const { app, database } = useTestApp();

/** Every admin operation from the router's meta, with a path whose parameters are filled (fillPath). */
const ADMIN_ROUTES = ROUTES.filter((r) => r.serviceScope === 'admin');

/** Another instance on the same database and identity provider. */
const instance = (options: { env?: Record<string, string>; clock?: () => Date } = {}) =>
  startOtherInstance(database, { issuer: app.issuer, ...options });

let keyCounter = 0;
function uniqueKey(prefix: string): string {
  keyCounter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${keyCounter}`;
}

async function admin(target: TestApp = app) {
  return target.serviceToken('ops-console', 'admin');
}

async function call(method: string, path: string, body?: unknown, target: TestApp = app) {
  return target.request(method, path, { token: await admin(target), body });
}

/** POST /api/events as `clientId`, one result per event. */
async function send(target: TestApp, clientId: string, events: unknown[]) {
  const token = await target.serviceToken(clientId);
  const response = await target.request('POST', '/api/events', { token, body: { events } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.results as any[];
}

/** A fan onboarded with `points` points (from prediction events, 25 each, plus the onboarding quests). */
async function onboardedFan(team: string | null = null) {
  const subject = uniqueSubject('fan');
  const token = await app.token(subject);
  const onboarding = await app.request('POST', '/api/user/profile', {
    token,
    body: team === null ? {} : { favoriteTeam: team },
  });
  expect(onboarding.status, onboarding.text).toBe(201);
  return { subject, token, userId: onboarding.body.data.user.id as string };
}

async function auditOf(kind: string, key: string) {
  const response = await call(
    'GET',
    `/api/admin/audit?targetKind=${kind}&targetKey=${encodeURIComponent(key)}`,
  );
  expect(response.status, response.text).toBe(200);
  return response.body.data.entries as any[];
}

describe('admin operations: who may call them', () => {
  it('lists every admin operation from the router', () => {
    expect(ADMIN_ROUTES.map((r) => r.name).sort()).toEqual(
      expect.arrayContaining([
        'adminAdjustPoints',
        'adminAuditLog',
        'adminCreateDefinition',
        'adminDefinitionHistory',
        'adminListDefinitions',
        'adminRetireDefinition',
        'adminReverseEvent',
        'adminSetBan',
        'adminUpdateDefinition',
      ]),
    );
  });

  it('refuses every one without a token, for fans, and for services without the admin scope', async () => {
    const fan = await app.token(uniqueSubject('fan'));
    const events = await app.serviceToken('checkin-service', 'events:write');
    for (const route of ADMIN_ROUTES) {
      const body = route.method === 'GET' ? undefined : {};
      const anonymous = await app.request(route.method, route.path, { token: null, body });
      expect(anonymous.status, `${route.name} anonymous`).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
      const asFan = await app.request(route.method, route.path, { token: fan, body });
      expect(asFan.status, `${route.name} fan`).toBe(403);
      expect(asFan.body.error.code).toBe('INSUFFICIENT_SCOPE');
      const asService = await app.request(route.method, route.path, { token: events, body });
      expect(asService.status, `${route.name} events:write`).toBe(403);
      expect(asService.body.error.code).toBe('INSUFFICIENT_SCOPE');
    }
    // The same refusal over tRPC.
    await expect(app.trpc(fan).adminListDefinitions.query({})).rejects.toMatchObject({
      data: { errorCode: 'INSUFFICIENT_SCOPE', httpStatus: 403 },
    });
  });
});

describe('definitions', () => {
  it('lists the default catalog, the five profile quests among them', async () => {
    const response = await call('GET', '/api/admin/definitions?kind=quest');
    expect(response.status, response.text).toBe(200);
    const keys = response.body.data.definitions.map((d: any) => d.key);
    expect(keys).toEqual(
      expect.arrayContaining(['daily_reader', 'matchday_regular', 'complete_profile']),
    );
    for (const d of response.body.data.definitions) {
      expect(d).toMatchObject({ kind: 'quest', retired: false, version: expect.any(Number) });
    }
  });

  it('creates, updates, retires with versions, audit rows, history and conflicts', async () => {
    const key = uniqueKey('cup_final');
    const type = {
      kind: 'event_type',
      key,
      title: 'Cup final check-in',
      points: 40,
      maxValue: 1,
      caps: { day: 1 },
    };
    const created = await call('POST', '/api/admin/definitions', { definition: type });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      kind: 'event_type',
      key,
      version: 1,
      retired: false,
      changedBy: 'ops-console',
      definition: { ...type, description: '' },
    });

    const again = await call('POST', '/api/admin/definitions', { definition: type });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('DEFINITION_CONFLICT');

    const updated = await call('PUT', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 1,
      definition: { ...type, points: 50 },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ version: 2, definition: { points: 50 } });

    const stale = await call('PUT', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 1,
      definition: { ...type, points: 60 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toContain('version 2, not 1');

    const renamed = await call('PUT', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 2,
      definition: { ...type, key: 'something_else' },
    });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error.code).toBe('VALIDATION_FAILED');

    // A quest counting it: the type may not be retired while the quest is active.
    const questKey = uniqueKey('cup_quest');
    const quest = await call('POST', '/api/admin/definitions', {
      definition: {
        kind: 'quest',
        key: questKey,
        title: 'Be at the final',
        goal: { kind: 'events', eventType: key },
        tiers: [{ target: 1, points: 100 }],
      },
    });
    expect(quest.status, quest.text).toBe(201);
    const blocked = await call('POST', `/api/admin/definitions/event_type/${key}/retire`, {
      expectedVersion: 2,
    });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toContain(`counts event type "${key}"`);

    const retiredQuest = await call('POST', `/api/admin/definitions/quest/${questKey}/retire`, {
      expectedVersion: 1,
    });
    expect(retiredQuest.status, retiredQuest.text).toBe(200);
    const retired = await call('POST', `/api/admin/definitions/event_type/${key}/retire`, {
      expectedVersion: 2,
    });
    expect(retired.status, retired.text).toBe(200);
    expect(retired.body.data).toMatchObject({ version: 3, retired: true });

    const listed = await call('GET', '/api/admin/definitions?kind=event_type');
    expect(listed.body.data.definitions.map((d: any) => d.key)).not.toContain(key);
    const all = await call('GET', '/api/admin/definitions?kind=event_type&includeRetired=true');
    expect(all.body.data.definitions.find((d: any) => d.key === key)).toMatchObject({
      version: 3,
      retired: true,
    });
    const history = await call('GET', `/api/admin/definitions/event_type/${key}`);
    expect(
      history.body.data.versions.map((v: any) => [v.version, v.retired, v.definition.points]),
    ).toEqual([
      [3, true, 50],
      [2, false, 50],
      [1, false, 40],
    ]);

    const audit = await auditOf('definition', `event_type/${key}`);
    expect(audit.map((a) => a.action)).toEqual([
      'definition.retire',
      'definition.update',
      'definition.create',
    ]);
    expect(audit[1]).toMatchObject({
      actor: 'ops-console',
      before: { version: 1, definition: { points: 40 } },
      after: { version: 2, definition: { points: 50 } },
    });
    expect(audit[2].before).toBeNull();

    // Nothing was recorded for a refused change.
    const rows = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM catalog_definitions WHERE key = ${key}`.execute(app.db);
    expect(rows.rows[0]!.n).toBe('3');
  });

  it('refuses a definition that names what is not active, or fails its own rules', async () => {
    const orphan = await call('POST', '/api/admin/definitions', {
      definition: {
        kind: 'streak',
        key: uniqueKey('orphan'),
        title: 'Nothing to count',
        eventType: 'no_such_type',
        period: 'day',
      },
    });
    expect(orphan.status).toBe(409);
    expect(orphan.body.error.message).toContain('"no_such_type", which is not active');

    const a = uniqueKey('qa');
    const b = uniqueKey('qb');
    expect(
      (
        await call('POST', '/api/admin/definitions', {
          definition: {
            kind: 'quest',
            key: a,
            title: 'A',
            goal: { kind: 'quests', quests: ['complete_profile'] },
            tiers: [{ target: 1, points: 1 }],
          },
        })
      ).status,
    ).toBe(201);
    const circle = await call('POST', '/api/admin/definitions', {
      definition: {
        kind: 'quest',
        key: b,
        title: 'B',
        goal: { kind: 'quests', quests: [a] },
        tiers: [{ target: 1, points: 1 }],
      },
    });
    expect(circle.status).toBe(201);
    const loop = await call('PUT', `/api/admin/definitions/quest/${a}`, {
      expectedVersion: 1,
      definition: {
        kind: 'quest',
        key: a,
        title: 'A',
        goal: { kind: 'quests', quests: [b] },
        tiers: [{ target: 1, points: 1 }],
      },
    });
    expect(loop.status).toBe(409);
    expect(loop.body.error.message).toContain('needs itself');
    // Retired again, so the rest of the file's fans do not complete them: B first (it needs A).
    for (const key of [b, a]) {
      const retired = await call('POST', `/api/admin/definitions/quest/${key}/retire`, {
        expectedVersion: 1,
      });
      expect(retired.status, retired.text).toBe(200);
    }

    const invalid = await call('POST', '/api/admin/definitions', {
      definition: {
        kind: 'quest',
        key: uniqueKey('bad'),
        title: 'Bad tiers',
        repeat: 'day',
        goal: { kind: 'events', eventType: 'article_read' },
        tiers: [
          { target: 5, points: 1 },
          { target: 3, points: 1 },
        ],
      },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(invalid.body.error.issues)).toContain('Targets must increase');

    expect((await call('GET', '/api/admin/definitions/quest/never_defined_here')).status).toBe(404);
  });

  it('takes effect on another instance within CATALOG_REFRESH_MS, with no restart', async () => {
    const other = await instance({ env: { CATALOG_REFRESH_MS: '200' } });
    try {
      const key = uniqueKey('derby_checkin');
      const fan = uniqueSubject('fan');
      // B knows the catalog before the change.
      const before = await send(other, 'checkin-service', [
        { id: `${fan}-0`, subject: fan, type: key },
      ]);
      expect(before[0].error.code).toBe('UNKNOWN_EVENT_TYPE');
      const created = await call('POST', '/api/admin/definitions', {
        definition: { kind: 'event_type', key, title: 'Derby check-in', points: 7 },
      });
      expect(created.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await send(other, 'checkin-service', [
        { id: `${fan}-1`, subject: fan, type: key },
      ]);
      expect(after[0]).toMatchObject({ status: 'recorded', points: 7 });
    } finally {
      await other.close();
    }
  });

  it('a quest shows up in every fan’s list, and leaves it when retired; what it awarded stays', async () => {
    const key = uniqueKey('weekend_reader');
    const created = await call('POST', '/api/admin/definitions', {
      definition: {
        kind: 'quest',
        key,
        title: 'Weekend reader',
        repeat: 'week',
        goal: { kind: 'events', eventType: 'article_read', measure: 'sum' },
        tiers: [
          { target: 2, points: 5 },
          { target: 4, points: 15 },
        ],
      },
    });
    expect(created.status).toBe(201);
    const fan = await onboardedFan();
    const results = await send(app, 'news-service', [
      { id: `${fan.subject}-r`, subject: fan.subject, type: 'article_read', value: 4 },
    ]);
    expect(results[0].questsCompleted.filter((q: any) => q.id === key)).toEqual([
      { id: key, period: expect.stringMatching(/^\d{4}-W\d{2}$/), tier: 1, points: 5 },
      { id: key, period: expect.stringMatching(/^\d{4}-W\d{2}$/), tier: 2, points: 15 },
    ]);
    const quests = await app.request('GET', '/api/user/quests', { token: fan.token });
    expect(quests.body.data.quests.find((q: any) => q.id === key)).toMatchObject({
      status: 'completed',
      tiersReached: 2,
      resetsAt: expect.any(String),
    });
    const balance = (await app.request('GET', '/api/user', { token: fan.token })).body.data.points;

    const retired = await call('POST', `/api/admin/definitions/quest/${key}/retire`, {
      expectedVersion: 1,
    });
    expect(retired.status).toBe(200);
    const after = await app.request('GET', '/api/user/quests', { token: fan.token });
    expect(after.body.data.quests.map((q: any) => q.id)).not.toContain(key);
    expect((await app.request('GET', '/api/user', { token: fan.token })).body.data.points).toBe(
      balance,
    );
  });
});

describe('a definition changed while events are recorded on two instances', () => {
  it('awards each event once, at the points of the version it was recorded under', async () => {
    const other = await instance({ env: { CATALOG_REFRESH_MS: '50' } });
    try {
      const key = uniqueKey('storm_type');
      const type = { kind: 'event_type', key, title: 'Storm', points: 3, maxValue: 1 };
      expect((await call('POST', '/api/admin/definitions', { definition: type })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const fans = Array.from({ length: 4 }, () => uniqueSubject('storm'));
      let next = 0;
      const batch = () =>
        fans.map((subject) => ({ id: `${key}-${(next += 1)}`, subject, type: key }));
      const batches = Array.from({ length: 12 }, batch);
      const sends = batches.map((events, i) =>
        send(i % 2 === 0 ? app : other, 'storm-service', events),
      );
      // Three changes of the points while the batches run.
      const changes = (async () => {
        for (let version = 1; version <= 3; version += 1) {
          const changed = await call('PUT', `/api/admin/definitions/event_type/${key}`, {
            expectedVersion: version,
            definition: { ...type, points: 3 + version },
          });
          expect(changed.status, changed.text).toBe(200);
        }
      })();
      // Resending everything at once: nothing twice.
      const results = (await Promise.all(sends)).flat();
      await changes;
      const resent = (
        await Promise.all(batches.map((events) => send(other, 'storm-service', events)))
      ).flat();
      expect(results.every((r) => r.status === 'recorded')).toBe(true);
      expect(resent.every((r) => r.status === 'duplicate')).toBe(true);
      expect(resent.map((r) => r.points)).toEqual(results.map((r) => r.points));

      const { rows } = await sql<{ points: number; version: number; n: string; ledger: string }>`
        SELECT a.points, a.type_version AS version, count(*)::text AS n,
               count(l.id)::text AS ledger
        FROM activity_events a
        LEFT JOIN points_ledger l ON l.user_id = a.user_id
          AND l.idempotency_key = 'event:storm-service:' || a.event_id
        WHERE a.client_id = 'storm-service' AND a.type = ${key}
        GROUP BY 1, 2 ORDER BY 2`.execute(app.db);
      // Each version's events earned that version's points, each with one ledger entry.
      for (const row of rows) {
        expect(row.points).toBe(2 + row.version);
        expect(row.ledger).toBe(row.n);
      }
      expect(rows.reduce((sum, row) => sum + Number(row.n), 0)).toBe(48);
      expect(await consistencyProblems(app.db)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('repeating quests and streaks over time', () => {
  it('a daily quest completes again on the next UTC day; a day streak counts midnight exactly, breaks on a missed day', async () => {
    let now = new Date(Date.UTC(2031, 2, 10, 23, 59, 0));
    const clock = () => now;
    const a = await instance({ clock, env: { CATALOG_REFRESH_MS: '0' } });
    const b = await instance({ clock, env: { CATALOG_REFRESH_MS: '0' } });
    try {
      const streak = uniqueKey('reading_days');
      const made = await call(
        'POST',
        '/api/admin/definitions',
        {
          definition: {
            kind: 'streak',
            key: streak,
            title: 'Reading days',
            eventType: 'article_read',
            period: 'day',
            milestones: [{ length: 2, points: 20 }],
          },
        },
        a,
      );
      expect(made.status, made.text).toBe(201);
      const fan = uniqueSubject('reader');
      const read = (target: TestApp, id: string, at: Date, value = 3) =>
        send(target, 'news-service', [
          { id, subject: fan, type: 'article_read', value, occurredAt: at.toISOString() },
        ]);

      // Day 1, a minute before midnight, on instance A: the daily quest and day 1 of the streak.
      const day1 = await read(a, `${fan}-1`, now);
      expect(day1[0].questsCompleted).toContainEqual({
        id: 'daily_reader',
        period: '2031-03-10',
        tier: 1,
        points: 10,
      });
      // Midnight exactly, on instance B: the next day's quest, and the streak's second day.
      now = new Date(Date.UTC(2031, 2, 11, 0, 0, 0));
      const day2 = await read(b, `${fan}-2`, now);
      expect(day2[0].questsCompleted).toContainEqual({
        id: 'daily_reader',
        period: '2031-03-11',
        tier: 1,
        points: 10,
      });
      // Twice in one day counts once.
      now = new Date(Date.UTC(2031, 2, 11, 12, 0, 0));
      const again = await read(a, `${fan}-3`, now, 1);
      expect(again[0].questsCompleted).toEqual([]);

      const token = await a.token(fan);
      const streaks = async (target: TestApp) =>
        (await target.request('GET', '/api/user/quests', { token })).body.data.streaks.find(
          (s: any) => s.id === streak,
        );
      expect(await streaks(b)).toMatchObject({
        current: 2,
        best: 2,
        countedThisPeriod: true,
        nextDeadline: '2031-03-13T00:00:00.000Z',
      });
      const ledger = await a.request('GET', '/api/user/points', { token });
      expect(ledger.body.data.entries.filter((e: any) => e.source.kind === 'streak')).toHaveLength(
        1,
      );

      // 12 March passes without reading: broken on the 13th, the next event starts at 1.
      now = new Date(Date.UTC(2031, 2, 13, 9, 0, 0));
      expect(await streaks(a)).toMatchObject({ current: 0, best: 2 });
      await read(b, `${fan}-4`, now, 1);
      expect(await streaks(a)).toMatchObject({ current: 1, best: 2 });
      expect(await consistencyProblems(a.db)).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('adjustments', () => {
  it('adds and takes points with a reason, once per id, never below 0, audited', async () => {
    const fan = await onboardedFan();
    const start = (await app.request('GET', '/api/user', { token: fan.token })).body.data.points;
    const path = `/api/admin/fans/${fan.userId}/adjustments`;
    const id = uniqueKey('goodwill');
    const plus = await call('POST', path, { id, points: 40, reason: 'Missed check-in at gate 4' });
    expect(plus.status, plus.text).toBe(200);
    expect(plus.body.data).toEqual({ id, status: 'adjusted', points: 40, balance: start + 40 });
    const repeat = await call('POST', path, {
      id,
      points: 40,
      reason: 'Missed check-in at gate 4',
    });
    expect(repeat.body.data).toMatchObject({ status: 'duplicate', balance: start + 40 });

    const tooMuch = await call('POST', path, {
      id: uniqueKey('fix'),
      points: -(start + 41),
      reason: 'Too much',
    });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error.code).toBe('INSUFFICIENT_BALANCE');

    const minus = await call('POST', path, { id: uniqueKey('fix'), points: -15, reason: 'Cheat' });
    expect(minus.body.data.balance).toBe(start + 25);

    const ledger = await app.request('GET', '/api/user/points', { token: fan.token });
    const [last, first] = ledger.body.data.entries;
    expect(last).toMatchObject({ delta: -15, balanceAfter: start + 25 });
    expect(last.source).toEqual({ kind: 'adjustment', by: 'ops-console', note: 'Cheat' });
    expect(first).toMatchObject({ delta: 40, balanceAfter: start + 40 });
    const me = await app.request('GET', '/api/leaderboard/me', { token: fan.token });
    expect(me.body.data.entry.points).toBe(start + 25);

    const audit = await auditOf('fan', fan.userId);
    expect(audit.map((a) => [a.action, a.before, a.after.balance])).toEqual([
      ['fan.adjust', { balance: start + 40 }, start + 25],
      ['fan.adjust', { balance: start }, start + 40],
    ]);

    for (const bad of [
      { id: 'x', points: 0, reason: 'zero' },
      { id: 'x', points: 1.5, reason: 'fraction' },
      { id: 'has space', points: 1, reason: 'id' },
      { id: 'x', points: 1, reason: '' },
    ]) {
      const response = await call('POST', path, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    }
    const nobody = await call(
      'POST',
      '/api/admin/fans/00000000-0000-4000-8000-000000000000/adjustments',
      {
        id: 'x',
        points: 1,
        reason: 'nobody',
      },
    );
    expect(nobody.status).toBe(404);
    expect(await consistencyProblems(app.db)).toEqual([]);
  });
});

describe('bans', () => {
  it('takes a fan off every board with exact ranks for everyone else, refuses their events, and puts them back', async () => {
    const other = await instance();
    try {
      const team = `Ban United ${uniqueKey('t')}`;
      const fans: Awaited<ReturnType<typeof onboardedFan>>[] = [];
      for (let i = 0; i < 5; i += 1) fans.push(await onboardedFan(team));
      // Distinct scores: fan i gets i × 25 from predictions.
      for (const [i, fan] of fans.entries()) {
        if (i === 0) continue;
        await send(
          app,
          'predict-service',
          Array.from({ length: i }, (_, k) => ({
            id: `${fan.subject}-p${k}`,
            subject: fan.subject,
            type: 'prediction_correct',
          })),
        );
      }
      const target = fans[3]!;
      const ranksBefore = await fullSortRanks(app.db);
      const teamBoard = async (instance: TestApp) =>
        (
          await instance.request('GET', `/api/leaderboard?team=${encodeURIComponent(team)}`, {
            token: fans[0]!.token,
          })
        ).body.data.entries.map((e: any) => e.userId);

      // A string is not a yes: REST bodies are not coerced into a ban.
      for (const value of ['false', 'true', 1, null]) {
        const refused = await call('PUT', `/api/admin/fans/${target.userId}/ban`, {
          banned: value,
          reason: 'Typo',
        });
        expect(refused.status, String(value)).toBe(400);
        expect(refused.body.error.issues[0].path).toBe('banned');
      }
      expect(await fullSortRanks(app.db)).toEqual(ranksBefore);
      const banned = await call('PUT', `/api/admin/fans/${target.userId}/ban`, {
        banned: true,
        reason: 'Bot account',
      });
      expect(banned.status, banned.text).toBe(200);
      expect(banned.body.data).toMatchObject({ userId: target.userId, banned: true });
      expect(banned.body.data.bannedAt).toEqual(expect.any(String));

      // Gone from the boards on both instances; everyone below moves up one.
      expect(await teamBoard(other)).not.toContain(target.userId);
      expect(await teamBoard(app)).toEqual([4, 2, 1, 0].map((i) => fans[i]!.userId));
      const ranksAfter = await fullSortRanks(app.db);
      for (const fan of [fans[4]!, fans[1]!, fans[0]!]) {
        const served = await other.request('GET', '/api/leaderboard/me', { token: fan.token });
        expect(served.body.data.entry.rank).toBe(ranksAfter.get(fan.userId)!.global);
        const shift =
          ranksBefore.get(fan.userId)!.global > ranksBefore.get(target.userId)!.global ? 1 : 0;
        expect(ranksAfter.get(fan.userId)!.global).toBe(
          ranksBefore.get(fan.userId)!.global - shift,
        );
      }
      const week = await other.request(
        'GET',
        `/api/leaderboard?period=week&team=${encodeURIComponent(team)}`,
        {
          token: fans[0]!.token,
        },
      );
      expect(week.body.data.entries.map((e: any) => e.userId)).not.toContain(target.userId);
      expect(await consistencyProblems(app.db)).toEqual([]);

      // Their events are refused; their own writes still work and stay hidden.
      const refused = await send(other, 'predict-service', [
        { id: `${target.subject}-late`, subject: target.subject, type: 'prediction_correct' },
      ]);
      expect(refused[0]).toMatchObject({ status: 'rejected', error: { code: 'FAN_BANNED' } });
      const patched = await other.request('PATCH', '/api/user', {
        token: target.token,
        body: { name: 'Still Here' },
      });
      expect(patched.status).toBe(200);
      expect(await teamBoard(app)).not.toContain(target.userId);
      // An adjustment while banned moves the hidden entry and no count.
      const adjusted = await call('POST', `/api/admin/fans/${target.userId}/adjustments`, {
        id: uniqueKey('while-banned'),
        points: 5,
        reason: 'Refund',
      });
      expect(adjusted.status, adjusted.text).toBe(200);
      expect(await consistencyProblems(app.db)).toEqual([]);

      const again = await call('PUT', `/api/admin/fans/${target.userId}/ban`, {
        banned: true,
        reason: 'Twice',
      });
      expect(again.body.data.bannedAt).toBe(banned.body.data.bannedAt);

      // On the instance whose first pages are read next: another instance's cached first
      // page follows within LEADERBOARD_FIRST_PAGE_CACHE_MS (test/operations/leaderboard).
      const unbanned = await call('PUT', `/api/admin/fans/${target.userId}/ban`, {
        banned: false,
        reason: 'Appeal upheld',
      });
      expect(unbanned.body.data).toEqual({ userId: target.userId, banned: false, bannedAt: null });
      expect(await teamBoard(app)).toEqual([4, 3, 2, 1, 0].map((i) => fans[i]!.userId));
      const restored = await fullSortRanks(app.db);
      const mine = await app.request('GET', '/api/leaderboard/me', { token: target.token });
      expect(mine.body.data.entry.rank).toBe(restored.get(target.userId)!.global);
      expect(await consistencyProblems(app.db)).toEqual([]);

      const audit = await auditOf('fan', target.userId);
      expect(audit.map((a) => a.action)).toEqual(['fan.unban', 'fan.adjust', 'fan.ban']);
      expect(audit[2].after).toEqual({ banned: true, reason: 'Bot account' });
    } finally {
      await other.close();
    }
  });
});

describe('reversals by an admin', () => {
  it('reverses another client’s event once, whoever asks, and keeps it in the audit log', async () => {
    const fan = await onboardedFan();
    const [recorded] = await send(app, 'quiz-service', [
      { id: `${fan.subject}-q`, subject: fan.subject, type: 'prediction_correct' },
    ]);
    const reversed = await call('POST', '/api/admin/reversals', {
      clientId: 'quiz-service',
      id: `${fan.subject}-q`,
      reason: 'Answer key was wrong',
    });
    expect(reversed.status, reversed.text).toBe(200);
    expect(reversed.body.data).toEqual({
      id: `${fan.subject}-q`,
      status: 'reversed',
      points: -25,
      balance: recorded.balance - 25,
    });
    const byClient = await app.request('POST', '/api/events/reversals', {
      token: await app.serviceToken('quiz-service'),
      body: { id: `${fan.subject}-q` },
    });
    expect(byClient.body.data.status).toBe('already_reversed');
    const unknown = await call('POST', '/api/admin/reversals', {
      clientId: 'other-service',
      id: `${fan.subject}-q`,
      reason: 'Wrong client',
    });
    expect(unknown.status).toBe(404);
    const audit = await auditOf('fan', fan.userId);
    expect(audit[0]).toMatchObject({
      action: 'event.reverse',
      actor: 'ops-console',
      after: { clientId: 'quiz-service', points: -25, reason: 'Answer key was wrong' },
    });
  });
});

describe('the audit log', () => {
  it('pages newest first, and a deleted fan’s rows name an anonymous id', async () => {
    const fan = await onboardedFan();
    for (let i = 0; i < 3; i += 1) {
      const adjusted = await call('POST', `/api/admin/fans/${fan.userId}/adjustments`, {
        id: uniqueKey('page'),
        points: 1,
        reason: `page ${i}`,
      });
      expect(adjusted.status).toBe(200);
    }
    const first = await call(
      'GET',
      `/api/admin/audit?limit=2&targetKind=fan&targetKey=${fan.userId}`,
    );
    expect(first.body.data.entries.map((e: any) => e.after.reason)).toEqual(['page 2', 'page 1']);
    const second = await call(
      'GET',
      `/api/admin/audit?limit=2&targetKind=fan&targetKey=${fan.userId}&before=${first.body.data.nextCursor}`,
    );
    expect(second.body.data.entries.map((e: any) => e.after.reason)).toEqual(['page 0']);
    expect(second.body.data.nextCursor).toBeNull();
    expect((await call('GET', '/api/admin/audit?targetKind=fan')).status).toBe(400);
    expect((await call('GET', '/api/admin/audit?before=abc')).status).toBe(400);

    expect((await app.request('DELETE', '/api/user', { token: fan.token })).status).toBe(200);
    expect(await auditOf('fan', fan.userId)).toEqual([]);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM admin_audit a JOIN users u ON u.id::text = a.target_key
      WHERE a.target_kind = 'fan' AND u.issuer = 'urn:user-profile-service:deleted'
        AND a.after ->> 'reason' LIKE 'page %'`.execute(app.db);
    expect(rows[0]!.n).toBe('3');
    // Append-only: the log refuses any other change.
    await expect(sql`DELETE FROM admin_audit`.execute(app.db)).rejects.toThrow(/append-only/);
  });
});
