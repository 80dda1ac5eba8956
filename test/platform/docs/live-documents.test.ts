import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYNCAPI_PATH, OPENAPI_PATH } from '../../../scripts/openapi.js';
import { dataEvents, openSse } from '../../helpers/live.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

/**
 * The committed documents describe what really goes out: webhook bodies and
 * headers a real receiver got, checked against openapi.json's `webhooks`
 * (JSON Schema 2020-12); stream messages a plain SSE reader got, checked
 * against asyncapi.json's messages (AsyncAPI's schema: JSON Schema draft 7).
 */
type Json = Record<string, any>;
const openapi = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
const asyncapi = JSON.parse(readFileSync(ASYNCAPI_PATH, 'utf8')) as Json;

const OPENAPI_ID = 'https://service.invalid/openapi.json';
const ASYNCAPI_ID = 'https://service.invalid/asyncapi.json';

const openapiAjv = new Ajv2020({ allErrors: true, strict: true });
formatsPlugin.default(openapiAjv);
openapiAjv.addVocabulary([
  ...Object.keys(openapi).filter((key) => key !== '$schema'),
  'example',
  'discriminator',
]);
openapiAjv.addSchema(openapi, OPENAPI_ID);

const asyncapiAjv = new Ajv({ allErrors: true, strict: true });
formatsPlugin.default(asyncapiAjv);
asyncapiAjv.addVocabulary([...Object.keys(asyncapi), 'discriminator']);
asyncapiAjv.addSchema(asyncapi, ASYNCAPI_ID);

const pointer = (...segments: string[]) =>
  segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** The validator of the body of webhook `type` in openapi.json (undefined: no such webhook). */
function webhookBody(type: string): ValidateFunction | undefined {
  if (!openapi.webhooks?.[type]) return undefined;
  const at = pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json');
  return openapiAjv.compile({ $ref: `${OPENAPI_ID}#/${at}/schema` });
}

/** Every problem of a delivery's headers against its webhook's header parameters. */
function headerProblems(type: string, headers: IncomingHttpHeaders): string[] {
  const parameters = openapi.webhooks[type].post.parameters as Json[];
  const problems: string[] = [];
  for (const parameter of parameters.filter((p) => p.in === 'header')) {
    const value = headers[parameter.name.toLowerCase()];
    if (value === undefined) {
      if (parameter.required) problems.push(`${parameter.name} missing`);
      continue;
    }
    const validate = openapiAjv.compile(parameter.schema);
    if (!validate(value))
      problems.push(`${parameter.name}: ${openapiAjv.errorsText(validate.errors)}`);
  }
  return problems;
}

/** The validator of message `name`'s payload in asyncapi.json. */
function streamMessage(name: string): ValidateFunction {
  return asyncapiAjv.compile({ $ref: `${ASYNCAPI_ID}#/components/messages/${name}/payload` });
}

describe('openapi.json webhooks and asyncapi.json streams against the real thing', () => {
  let database: TestDatabase;
  let app: TestApp;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    database = await createTestDatabase();
    app = await startTestApp({
      database,
      env: {
        WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      },
      webhookOptions: {
        pollMs: 100,
        baseDelayMs: 200,
        maxDelayMs: 1_000,
        timeoutMs: 1_000,
        leaseSeconds: 2,
      },
    });
  });

  afterAll(async () => {
    await app?.close();
    await database?.destroy();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('documents every webhook event type with the Standard Webhooks headers', () => {
    const types = Object.keys(openapi.webhooks).sort();
    expect(types).toEqual(
      [
        'account_deleted',
        'points_awarded',
        'quest_completed',
        'rank_changed',
        'streak_extended',
        'streak_lost',
        'webhook_test',
      ].sort(),
    );
    for (const type of types) {
      const names = (openapi.webhooks[type].post.parameters as Json[])
        .filter((p) => p.required)
        .map((p) => p.name);
      expect(names).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
    expect(Object.keys(asyncapi.channels).sort()).toEqual([
      'adminLeaderboardEvents',
      'leaderboardEvents',
      'myEvents',
      'socket',
    ]);
  });

  it('a stream’s messages and a receiver’s webhooks match the documents', async () => {
    const token = await app.token(uniqueSubject('documented'));
    const onboarded = await app.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: 'Document Rovers' },
    });
    expect(onboarded.status).toBe(201);
    const userId = onboarded.body.data.user.id as string;

    // The stream replays the user's retained events: each one checked.
    const input = encodeURIComponent(JSON.stringify({ lastEventId: '0' }));
    const stream = await openSse(`${app.url}/trpc/myEvents?input=${input}`, {
      authorization: `Bearer ${token}`,
    });
    try {
      await stream.until(() => stream.messages >= 3);
      const liveEvent = streamMessage('LiveEvent');
      const messages = dataEvents(stream);
      for (const { id, data } of messages) {
        expect(liveEvent(data), asyncapiAjv.errorsText(liveEvent.errors)).toBe(true);
        expect(id).toBe(data.id);
      }
      expect(new Set(messages.map(({ data }) => data.type))).toEqual(
        new Set(['points_awarded', 'quest_completed', 'rank_changed']),
      );
      // The check can fail: an event with a field of the wrong type.
      const wrong = structuredClone(messages[0]!.data);
      wrong.userId = 42;
      expect(liveEvent(wrong)).toBe(false);
    } finally {
      stream.close();
    }

    const board = await openSse(
      `${app.url}/trpc/leaderboardEvents?input=${encodeURIComponent(JSON.stringify({ top: 3 }))}`,
      { authorization: `Bearer ${token}` },
    );
    try {
      await board.until(() => board.messages >= 1);
      const update = streamMessage('LeaderboardUpdate');
      const [first] = dataEvents(board);
      expect(update(first!.data), asyncapiAjv.errorsText(update.errors)).toBe(true);
      expect(update({ ...first!.data, board: 'galaxy' })).toBe(false);
    } finally {
      board.close();
    }

    // Once its events are delivered, the account is deleted: that is announced too.
    const mine = () =>
      received
        .map((delivery) => ({ ...delivery, event: JSON.parse(delivery.body) as Json }))
        .filter(({ event }) => event.userId === userId);
    await expect
      .poll(() => new Set(mine().map(({ event }) => event.type)).size, { timeout: 20_000 })
      .toBe(3);
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
    await expect
      .poll(() => mine().map(({ event }) => event.type), { timeout: 20_000 })
      .toContain('account_deleted');

    const deliveries = mine();
    expect(new Set(deliveries.map(({ event }) => event.type))).toEqual(
      new Set(['points_awarded', 'quest_completed', 'rank_changed', 'account_deleted']),
    );
    for (const { event, headers } of deliveries) {
      const validate = webhookBody(event.type);
      expect(validate, `no webhook documented for ${event.type}`).toBeDefined();
      expect(validate!(event), openapiAjv.errorsText(validate!.errors)).toBe(true);
      expect(headerProblems(event.type, headers)).toEqual([]);
      expect(headers['webhook-id']).toBe(event.id);
    }
    // …and the checks can fail: a body of another type, a missing signature.
    const [first] = deliveries;
    expect(webhookBody('account_deleted')!(first!.event)).toBe(
      first!.event.type === 'account_deleted',
    );
    const { 'webhook-signature': _signature, ...unsigned } = first!.headers;
    expect(headerProblems(first!.event.type, unsigned)).toEqual(['webhook-signature missing']);
    expect(webhookBody('resync')).toBeUndefined();
  });

  it('an admin’s test event matches its document', async () => {
    const admin = await app.serviceToken('ops-console', 'admin');
    const list = await app.request('GET', '/api/admin/webhook-endpoints', { token: admin });
    const endpoint = list.body.data.endpoints.find((e: Json) => e.source === 'config');
    const tested = await app.request('POST', `/api/admin/webhook-endpoints/${endpoint.id}/test`, {
      token: admin,
      body: {},
    });
    expect(tested.status, tested.text).toBe(200);
    const delivery = received.find(
      ({ headers }) => headers['webhook-id'] === tested.body.data.eventId,
    );
    expect(delivery).toBeDefined();
    const event = JSON.parse(delivery!.body) as Json;
    const validate = webhookBody('webhook_test')!;
    expect(validate(event), openapiAjv.errorsText(validate.errors)).toBe(true);
    expect(headerProblems('webhook_test', delivery!.headers)).toEqual([]);
    expect(validate({ ...event, data: {} })).toBe(false);
  });
});
