import { describe, expect, it } from 'vitest';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Every free text an admin sends (definition titles and descriptions,
 * adjustment, ban and reversal reasons, webhook descriptions) and every event
 * subject goes through the text rule of the profile fields
 * (src/domain/text.ts): NUL, a lone surrogate, a bidirectional control or an
 * invisible character is a 400 naming the field on both faces, and nothing
 * is written. Without the rule NUL and a lone surrogate reach PostgreSQL (a
 * 500) and the others are stored and shown to fans.
 */
const { app } = useTestApp();

const BAD: Array<[string, string, RegExp]> = [
  ['NUL', 'Derby\u0000day', /Control characters are not allowed \(U\+0000\)/],
  ['a lone surrogate', 'Derby\uD800day', /valid Unicode text/],
  ['a right-to-left override', 'Derby \u202Eyad', /Bidirectional control .*U\+202E/],
  ['a zero-width space', 'Derby\u200Bday', /Invisible characters .*U\+200B/],
];

let counter = 0;
const uniqueKey = (prefix: string) => `${prefix}_${process.pid}_${(counter += 1)}`;
const admin = () => app.serviceToken('ops-console', 'admin');

async function onboardedFan() {
  const subject = uniqueSubject('fan');
  const token = await app.token(subject);
  const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(onboarding.status, onboarding.text).toBe(201);
  return { subject, token, userId: onboarding.body.data.user.id as string };
}

async function auditCount(kind: string, key: string): Promise<number> {
  const response = await app.request(
    'GET',
    `/api/admin/audit?targetKind=${kind}&targetKey=${encodeURIComponent(key)}`,
    { token: await admin() },
  );
  expect(response.status, response.text).toBe(200);
  return response.body.data.entries.length;
}

const eventType = (key: string, fields: Record<string, unknown> = {}) => ({
  kind: 'event_type',
  key,
  title: 'Cup final check-in',
  points: 5,
  maxValue: 1,
  ...fields,
});

/**
 * One free-text field: how to send a body holding `text` in it on each face,
 * the issue path it must be named by, and what must be unchanged afterwards.
 */
interface Field {
  name: string;
  path: RegExp;
  setup: () => Promise<{
    rest: (text: string) => { method: string; path: string; body: unknown };
    trpc: (text: string) => (token: string) => Promise<unknown>;
    /** Reads what a write would have changed, before and after. */
    state: () => Promise<unknown>;
  }>;
}

const FIELDS: Field[] = [
  {
    name: 'a definition title (create)',
    // A union of kinds: the issue names `definition` or `definition.title`.
    path: /^definition(\.title)?$/,
    async setup() {
      const key = uniqueKey('text_title');
      return {
        rest: (title) => ({
          method: 'POST',
          path: '/api/admin/definitions',
          body: { definition: eventType(key, { title }) },
        }),
        trpc: (title) => (token) =>
          app.trpc(token).adminCreateDefinition.mutate({
            definition: eventType(key, { title }) as never,
          }),
        state: () => auditCount('definition', `event_type/${key}`),
      };
    },
  },
  {
    name: 'a quest description (create)',
    path: /^definition(\.description)?$/,
    async setup() {
      const key = uniqueKey('text_quest');
      const quest = (description: string) => ({
        kind: 'quest',
        key,
        title: 'Read a lot',
        description,
        goal: { kind: 'events', eventType: 'article_read' },
        tiers: [{ target: 3, points: 5 }],
      });
      return {
        rest: (description) => ({
          method: 'POST',
          path: '/api/admin/definitions',
          body: { definition: quest(description) },
        }),
        trpc: (description) => (token) =>
          app.trpc(token).adminCreateDefinition.mutate({ definition: quest(description) as never }),
        state: () => auditCount('definition', `quest/${key}`),
      };
    },
  },
  {
    name: 'a definition title (update)',
    path: /^definition(\.title)?$/,
    async setup() {
      const key = uniqueKey('text_update');
      const created = await app.request('POST', '/api/admin/definitions', {
        token: await admin(),
        body: { definition: eventType(key) },
      });
      expect(created.status, created.text).toBe(201);
      const body = (title: string) => ({
        expectedVersion: 1,
        definition: eventType(key, { title }),
      });
      return {
        rest: (title) => ({
          method: 'PUT',
          path: `/api/admin/definitions/event_type/${key}`,
          body: body(title),
        }),
        trpc: (title) => (token) =>
          app
            .trpc(token)
            .adminUpdateDefinition.mutate({ kind: 'event_type', key, ...body(title) } as never),
        state: () => auditCount('definition', `event_type/${key}`),
      };
    },
  },
  {
    name: 'an adjustment reason',
    path: /^reason$/,
    async setup() {
      const fan = await onboardedFan();
      return {
        rest: (reason) => ({
          method: 'POST',
          path: `/api/admin/fans/${fan.userId}/adjustments`,
          body: { id: uniqueKey('adj'), points: 10, reason },
        }),
        trpc: (reason) => (token) =>
          app.trpc(token).adminAdjustPoints.mutate({
            userId: fan.userId,
            id: uniqueKey('adj'),
            points: 10,
            reason,
          }),
        state: async () => [
          (await app.request('GET', '/api/user', { token: fan.token })).body.data.points,
          await auditCount('fan', fan.userId),
        ],
      };
    },
  },
  {
    name: 'a ban reason',
    path: /^reason$/,
    async setup() {
      const fan = await onboardedFan();
      return {
        rest: (reason) => ({
          method: 'PUT',
          path: `/api/admin/fans/${fan.userId}/ban`,
          body: { banned: true, reason },
        }),
        trpc: (reason) => (token) =>
          app.trpc(token).adminSetBan.mutate({ userId: fan.userId, banned: true, reason }),
        state: () => auditCount('fan', fan.userId),
      };
    },
  },
  {
    name: 'a reversal reason',
    path: /^reason$/,
    async setup() {
      const fan = await onboardedFan();
      const id = uniqueKey('evt');
      const sent = await app.request('POST', '/api/events', {
        token: await app.serviceToken('text-sender'),
        body: { events: [{ id, subject: fan.subject, type: 'match_checkin' }] },
      });
      expect(sent.body.data.results[0].status, sent.text).toBe('recorded');
      return {
        rest: (reason) => ({
          method: 'POST',
          path: '/api/admin/reversals',
          body: { clientId: 'text-sender', id, reason },
        }),
        trpc: (reason) => (token) =>
          app.trpc(token).adminReverseEvent.mutate({ clientId: 'text-sender', id, reason }),
        state: async () => [
          (await app.request('GET', '/api/user', { token: fan.token })).body.data.points,
          await auditCount('fan', fan.userId),
        ],
      };
    },
  },
  {
    name: 'a webhook endpoint description (create)',
    path: /^description$/,
    async setup() {
      const url = `https://hooks.example.com/${uniqueKey('text')}`;
      const list = async () =>
        (
          await app.request('GET', '/api/admin/webhook-endpoints', { token: await admin() })
        ).body.data.endpoints.filter((e: { url: string }) => e.url === url).length;
      return {
        rest: (description) => ({
          method: 'POST',
          path: '/api/admin/webhook-endpoints',
          body: { url, description },
        }),
        trpc: (description) => (token) =>
          app.trpc(token).adminCreateWebhookEndpoint.mutate({ url, description }),
        state: list,
      };
    },
  },
  {
    name: 'a webhook endpoint description (update)',
    path: /^description$/,
    async setup() {
      const created = await app.request('POST', '/api/admin/webhook-endpoints', {
        token: await admin(),
        body: { url: `https://hooks.example.com/${uniqueKey('text')}`, description: 'CRM' },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.endpoint.id as string;
      return {
        rest: (description) => ({
          method: 'PATCH',
          path: `/api/admin/webhook-endpoints/${id}`,
          body: { description },
        }),
        trpc: (description) => (token) =>
          app.trpc(token).adminUpdateWebhookEndpoint.mutate({ id, description }),
        state: () => auditCount('webhook_endpoint', id),
      };
    },
  },
];

describe('admin free text: the text rule of every stored text', () => {
  describe.each(FIELDS)('$name', (field) => {
    it.each(BAD)(
      'refuses %s with a 400 naming the field, on REST and tRPC',
      async (_, bad, message) => {
        const { rest, trpc, state } = await field.setup();
        const before = await state();
        const token = await admin();

        const request = rest(bad);
        const response = await app.request(request.method, request.path, {
          token,
          body: request.body,
        });
        expect(response.status, response.text).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_FAILED');
        const issues = response.body.error.issues as Array<{ path: string; message: string }>;
        expect(
          issues.some((issue) => field.path.test(issue.path)),
          response.text,
        ).toBe(true);
        if (!issues.some((issue) => issue.path === 'definition')) {
          expect(issues.map((issue) => issue.message).join('; ')).toMatch(message);
        }

        const error = await trpc(bad)(token).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toMatchObject({ data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 } });
        const trpcIssues = (error as { data: { issues: Array<{ path: string }> } }).data.issues;
        expect(trpcIssues.some((issue) => field.path.test(issue.path))).toBe(true);

        expect(await state()).toEqual(before);
      },
    );
  });

  it('stores a title and a reason as the fan fields are stored: NFC, trimmed, emoji kept', async () => {
    const key = uniqueKey('text_ok');
    const created = await app.request('POST', '/api/admin/definitions', {
      token: await admin(),
      body: {
        definition: eventType(key, { title: '  Cafe\u0301 derby 🏟️\n', description: ' 👨‍👩‍👧 ' }),
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.definition).toMatchObject({
      title: 'Café derby 🏟️',
      description: '👨‍👩‍👧',
    });
    const empty = await app.request('POST', '/api/admin/definitions', {
      token: await admin(),
      body: { definition: eventType(uniqueKey('text_blank'), { title: ' \t ' }) },
    });
    expect(empty.status, empty.text).toBe(400);

    const fan = await onboardedFan();
    const adjusted = await app.request('POST', `/api/admin/fans/${fan.userId}/adjustments`, {
      token: await admin(),
      body: { id: uniqueKey('adj'), points: 5, reason: ' Goodwill 🎁 ' },
    });
    expect(adjusted.status, adjusted.text).toBe(200);
    const audit = await app.request(
      'GET',
      `/api/admin/audit?targetKind=fan&targetKey=${fan.userId}`,
      { token: await admin() },
    );
    expect(audit.body.data.entries[0].after).toMatchObject({ reason: 'Goodwill 🎁' });
  });
});

describe('event subjects: bidirectional controls and invisible characters', () => {
  it.each([
    ['a right-to-left override', 'fan-\u202Enimda', /bidirectional control/],
    ['a left-to-right isolate', 'fan-\u2066x', /bidirectional control/],
    ['a zero-width space', 'fan-\u200Bx', /invisible/],
  ])('refuses %s in a subject with a 400 naming it, on REST and tRPC', async (_, bad, message) => {
    const token = await app.serviceToken('text-sender');
    const id = uniqueKey('subject');
    const body = { events: [{ id, subject: bad, type: 'match_checkin' }] };
    const response = await app.request('POST', '/api/events', { token, body });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.issues).toEqual([
      { path: 'events.0.subject', message: expect.stringMatching(message) },
    ]);
    await expect(app.trpc(token).recordEvents.mutate(body as never)).rejects.toMatchObject({
      data: {
        errorCode: 'VALIDATION_FAILED',
        issues: [{ path: 'events.0.subject', message: expect.stringMatching(message) }],
      },
    });
    const users = await app.db
      .selectFrom('users')
      .select('id')
      .where('subject', '=', bad)
      .execute();
    expect(users).toEqual([]);
  });

  it('refuses a fan token whose sub holds one (401, no user)', async () => {
    const subject = `fan-${process.pid}-\u202Eevil`;
    const response = await app.request('GET', '/api/user', { token: await app.token(subject) });
    expect(response.status, response.text).toBe(401);
    expect(response.body.error.message).toMatch(/"sub" claim contains bidirectional control/);
    const users = await app.db
      .selectFrom('users')
      .select('id')
      .where('subject', '=', subject)
      .execute();
    expect(users).toEqual([]);
  });
});
