import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../../scripts/openapi.js';
import { listOperations } from '../../../src/openapi-operations.js';
import { useTestApp } from '../../helpers/test-app.js';

type Json = Record<string, any>;
const document = JSON.parse(await readFile(OPENAPI_PATH, 'utf8')) as Json;
const { app } = useTestApp();

/** Every request example in openapi.json, with the operation it belongs to. */
const requestExamples = listOperations(document as never).flatMap(({ path, method, operation }) =>
  Object.entries(
    ((operation as Json).requestBody?.content['application/json'].examples ?? {}) as Json,
  ).map(([name, example]) => ({
    label: `${method.toUpperCase()} ${path} ${name}`,
    path,
    method: method.toUpperCase(),
    value: example.value as unknown,
    successes: Object.keys((operation as Json).responses)
      .map(Number)
      .filter((status) => status < 300),
    /** The scope a service operation's token must hold; undefined for a fan's operation. */
    scope: ((operation as Json).security?.[0]?.serviceAuth?.[0] as string | undefined) ?? undefined,
  })),
);

/** The events the examples name, recorded first, so an example that reverses one finds it. */
const eventsExample = requestExamples.find(({ path }) => path === '/api/events')?.value as
  { events: { subject: string }[] } | undefined;

/** The definition the admin examples create, change and retire, in the document's order. */
const definitionExample = requestExamples.find(
  ({ path, method }) => path === '/api/admin/definitions' && method === 'POST',
)?.value as { definition: { kind: string; key: string } } | undefined;

/**
 * The example's path with its parameters filled: the admin examples' definition, and the
 * first fan the events example names (recorded, so known).
 */
async function concretePath(path: string): Promise<string> {
  if (!path.includes('{')) return path;
  const subject = eventsExample!.events[0]!.subject;
  const fan = await app.db
    .selectFrom('users')
    .select('id')
    .where('subject', '=', subject)
    .executeTakeFirstOrThrow();
  return path
    .replace('{kind}', definitionExample!.definition.kind)
    .replace('{key}', definitionExample!.definition.key)
    .replace('{userId}', fan.id);
}

/**
 * `path` with its parameters filled in with something that exists (made with `token`); for a
 * redelivery, the endpoint was sent the example's event before (a delivery it logged).
 */
async function pathFor(path: string, token: string, value: unknown): Promise<string> {
  if (path.startsWith('/api/admin/webhook-endpoints/{id}')) {
    const created = await app.request('POST', '/api/admin/webhook-endpoints', {
      token,
      body: { url: 'https://hooks.example.com/examples' },
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.data.endpoint.id as string;
    if (path.endsWith('/redeliveries')) await deliveredBefore(endpointId, value);
    return path.replace('{id}', endpointId);
  }
  expect(path).not.toContain('{');
  return path;
}

/** The example's event in the outbox, and one attempt at it in the endpoint's log. */
async function deliveredBefore(endpointId: string, value: unknown) {
  const { eventId } = value as { eventId: string };
  const user = await app.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
  await sql`INSERT INTO live_events (id, user_id, type, payload, webhook_next_at)
    OVERRIDING SYSTEM VALUE VALUES (${eventId}, ${user.id}, 'quest_completed', '{}', NULL)
    ON CONFLICT (id) DO NOTHING`.execute(app.db);
  await app.db
    .insertInto('webhookDeliveries')
    .values({
      eventId,
      endpointId,
      eventType: 'quest_completed',
      attempt: 1,
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      durationMs: 12,
    })
    .execute();
}

describe('the request examples in openapi.json', () => {
  it('has some', () => {
    expect(requestExamples.map(({ label }) => label)).toEqual(
      expect.arrayContaining(['PATCH /api/user editProfile', 'POST /api/user/profile onboard']),
    );
  });

  it.each(requestExamples)(
    '$label succeeds as documented for a new user',
    async ({ path, method, value, successes, scope }) => {
      const token = scope ? await app.serviceToken('checkin-service', scope) : await app.token();
      if (scope && eventsExample) {
        const sender = await app.serviceToken('checkin-service', 'events:write');
        await app.request('POST', '/api/events', { token: sender, body: eventsExample });
      }
      const response = await app.request(
        method,
        await pathFor(await concretePath(path), token, value),
        {
          token,
          body: value,
        },
      );
      expect(successes).toContain(response.status);
      expect(response.body.success).toBe(true);
    },
  );

  // Swagger UI prefills an operation's first example: following it must work for every
  // reader, not only the first (a fixed handle would be 409 HANDLE_TAKEN for the rest).
  const prefilled = requestExamples.filter(
    (example, index) =>
      example.scope === undefined &&
      requestExamples.findIndex(
        (other) =>
          other.label.split(' ').slice(0, 2).join(' ') ===
          example.label.split(' ').slice(0, 2).join(' '),
      ) === index,
  );

  it.each(prefilled)(
    '$label also succeeds for the next reader',
    async ({ path, method, value, successes }) => {
      for (const reader of [await app.token(), await app.token()]) {
        const response = await app.request(method, await concretePath(path), {
          token: reader,
          body: value,
        });
        expect(successes).toContain(response.status);
      }
    },
  );

  it('a request example that claims a handle tells the reader to pick their own', () => {
    const claiming = requestExamples.filter(
      ({ value }) => typeof (value as { handle?: unknown } | null)?.handle === 'string',
    );
    for (const { path, method, label } of claiming) {
      const operation = document.paths[path][method.toLowerCase()] as Json;
      const name = label.split(' ')[2]!;
      const example = operation.requestBody.content['application/json'].examples[name] as Json;
      expect(example.summary).toMatch(/your own/);
      expect(prefilled.map((other) => other.label)).not.toContain(label);
    }
  });
});
