import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../scripts/openapi.js';
import { listOperations } from '../../src/openapi.js';
import { useTestApp } from '../helpers/test-app.js';

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
    scope: ((operation as Json).security?.[0]?.bearerAuth?.[0] as string | undefined) ?? undefined,
  })),
);

/** The events the examples name, recorded first, so an example that reverses one finds it. */
const eventsExample = requestExamples.find(({ path }) => path === '/api/events')?.value;

describe('the request examples in openapi.json', () => {
  it('has some', () => {
    expect(requestExamples.map(({ label }) => label)).toEqual(
      expect.arrayContaining(['PATCH /api/user editProfile', 'POST /api/user/profile onboard']),
    );
  });

  it.each(requestExamples)(
    '$label succeeds as documented for a new user',
    async ({ path, method, value, successes, scope }) => {
      const token = scope ? await app.serviceToken('example-service', scope) : await app.token();
      if (scope && eventsExample) {
        await app.request('POST', '/api/events', { token, body: eventsExample });
      }
      const response = await app.request(method, path, { token, body: value });
      expect(successes).toContain(response.status);
      expect(response.body.success).toBe(true);
    },
  );
});
