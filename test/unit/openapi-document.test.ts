import { readFile } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPENAPI_PATH } from '../../scripts/openapi.js';
import { buildOpenApiDocument, operationMetaProblems, TAGS } from '../../src/openapi.js';
import { HEALTH_PATHS } from '../../src/openapi-health.js';
import { listOperations } from '../../src/openapi-operations.js';
import { appRouter } from '../../routers/index.js';
import { publicProcedure, router, type OperationMeta } from '../../src/trpc/init.js';
import { listProcedures } from '../../src/trpc/procedures.js';
import { ERROR_TABLE } from '../../src/error-mapping.js';
import { ERROR_CODES } from '../../src/app-error.js';
import { createResponseChecker } from '../helpers/openapi-conformance.js';

const document = JSON.parse(await readFile(OPENAPI_PATH, 'utf8')) as OpenAPIObject;
type Json = Record<string, any>;

/** The operations that are procedures (not the health checks). */
function procedureOperations() {
  return (listOperations(document) as { path: string; operation: Json }[]).filter(
    ({ path }) => !Object.hasOwn(HEALTH_PATHS, path),
  );
}

describe('openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('documents every operation with summary, description, a declared tag and security', () => {
    const declared = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
    expect([...declared.keys()]).toEqual(TAGS.map((tag) => tag.name));
    for (const description of declared.values()) expect(description).toBeTruthy();
    const operations = listOperations(document);
    expect(operations.length).toBeGreaterThan(0);
    for (const { operation } of operations as { operation: Json }[]) {
      expect(operation.summary, operation.operationId).toBeTruthy();
      expect(operation.description, operation.operationId).toBeTruthy();
      expect(operation.tags).toHaveLength(1);
      expect(declared.has(operation.tags[0])).toBe(true);
      const health = operation.tags[0] === 'health';
      // A service operation names the scope its token must hold.
      const scopes =
        ({ events: ['events:write'], admin: ['admin'] } as Record<string, string[]>)[
          operation.tags[0]
        ] ?? [];
      expect(operation.security).toEqual(
        health ? [] : [scopes.length ? { serviceAuth: scopes } : { bearerAuth: [] }],
      );
    }
  });

  it('gives every error response the contract envelope with real examples, and nothing else', () => {
    const schemas = document.components?.schemas ?? {};
    expect(Object.keys(schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    expect(schemas.ErrorEnvelope).toBeDefined();
    const declared = new Map(
      listProcedures(appRouter).map(({ path, meta }) => [path, meta?.openapi?.errorResponses]),
    );
    for (const { operation } of procedureOperations()) {
      const errors = declared.get(operation.operationId) as number[];
      const statuses = Object.keys(operation.responses).map(Number);
      expect(statuses.filter((status) => status >= 400)).toEqual([...errors].sort());
      for (const status of errors) {
        const media = operation.responses[status].content['application/json'];
        expect(media.schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
        const examples = Object.values(media.examples as Json) as { value: Json }[];
        expect(examples.length).toBeGreaterThan(0);
        for (const { value } of examples) {
          expect(ERROR_TABLE[value.error.code as (typeof ERROR_CODES)[number]].status).toBe(status);
        }
      }
    }
  });

  it('describes the PATCH body as the service treats it: at least one field, no unknown keys', () => {
    const schemas = document.components?.schemas as Json;
    const body = (document.paths as Json)['/api/user'].patch.requestBody.content['application/json']
      .schema;
    expect(body).toEqual({ $ref: '#/components/schemas/UpdateUserInput' });
    expect(schemas.UpdateUserInput).toMatchObject({
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
    });
    const onboarding = (document.paths as Json)['/api/user/profile'].post;
    expect(onboarding.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/OnboardProfileInput',
    });
    expect(schemas.OnboardProfileInput.additionalProperties).toBe(false);
    expect(Object.keys(onboarding.responses)).toContain('201');
  });
});

describe('an operation declared in its procedure', () => {
  const meta = (openapi: Partial<NonNullable<OperationMeta['openapi']>>): OperationMeta => ({
    openapi: { method: 'GET', path: '/api/news', summary: 's', description: 'd', ...openapi },
  });
  const news = (openapi: Partial<NonNullable<OperationMeta['openapi']>>) =>
    router({
      teamNews: publicProcedure
        .meta(meta(openapi))
        .output(z.object({ ok: z.boolean() }))
        .query(() => ({ ok: true })),
    });

  it('declares a known tag and its error statuses in every operation of the app', () => {
    expect(listProcedures(appRouter).flatMap(operationMetaProblems)).toEqual([]);
  });

  it('refuses an operation without a tag, with an unknown one, or without its error statuses', () => {
    expect(() => buildOpenApiDocument(news({ errorResponses: [401] }))).toThrow(
      'teamNews: meta.openapi.tags must be one of user, leaderboard, events, admin, webhooks, health',
    );
    expect(() => buildOpenApiDocument(news({ tags: ['news'], errorResponses: [401] }))).toThrow(
      'teamNews: meta.openapi.tags must be one of',
    );
    expect(() => buildOpenApiDocument(news({ tags: ['user'] }))).toThrow(
      'teamNews: meta.openapi.errorResponses must list its error statuses',
    );
    expect(() => buildOpenApiDocument(news({ tags: ['user'], errorResponses: [418] }))).toThrow(
      'teamNews: no contract code answers with status 418',
    );
  });

  it('documents what the meta declares: the tag and each error status with the envelope', () => {
    const built = buildOpenApiDocument(
      news({ tags: ['leaderboard'], errorResponses: [401, 429], protect: false }),
    ) as Json;
    const operation = built.paths['/api/news'].get;
    expect(operation.tags).toEqual(['leaderboard']);
    expect(operation.security).toEqual([]);
    expect(Object.keys(operation.responses)).toEqual(['200', '401', '429']);
    expect(operation.responses['429'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
  });
});

describe('the response checker', () => {
  const checker = createResponseChecker(document);
  const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  const error = (code: string) => JSON.stringify({ success: false, error: { code, message: 'x' } });

  it('accepts a documented error body', () => {
    const result = checker.check({
      method: 'PATCH',
      url: '/api/user',
      status: 409,
      headers: json,
      text: error('HANDLE_TAKEN'),
    });
    expect(result).toEqual({ checked: true, operation: 'updateUser', errors: [] });
  });

  it('rejects a body that does not match the schema for its status', () => {
    const wrong = checker.check({
      method: 'PATCH',
      url: '/api/user?x=1',
      status: 200,
      headers: json,
      text: JSON.stringify({ success: true, data: { id: 'not-a-uuid' } }),
    });
    expect(wrong.checked && wrong.errors.length).toBeGreaterThan(0);
    const adapterShape = checker.check({
      method: 'POST',
      url: '/api/user/profile',
      status: 400,
      headers: json,
      text: JSON.stringify({ message: 'Invalid input', code: 'BAD_REQUEST', issues: [] }),
    });
    expect(adapterShape.checked && adapterShape.errors.length).toBeGreaterThan(0);
  });

  it('rejects an undocumented status, a missing required header and a non-JSON body', () => {
    const undocumented = checker.check({
      method: 'PATCH',
      url: '/api/user',
      status: 404,
      headers: json,
      text: error('NOT_FOUND'),
    });
    expect(undocumented).toMatchObject({ errors: ['status 404 is not documented for updateUser'] });
    const noHeader = checker.check({
      method: 'PATCH',
      url: '/api/user',
      status: 401,
      headers: json,
      text: error('UNAUTHENTICATED'),
    });
    expect(noHeader).toMatchObject({ errors: ['required header WWW-Authenticate is missing'] });
    const html = checker.check({
      method: 'PATCH',
      url: '/api/user',
      status: 500,
      headers: new Headers({ 'content-type': 'text/html' }),
      text: '<h1>oops</h1>',
    });
    expect(html.checked && html.errors).toEqual([
      'content-type "text/html" is not one of application/json',
    ]);
  });

  it('skips, and says so, only what no operation describes', () => {
    expect(
      checker.check({ method: 'PUT', url: '/api/user', status: 405, headers: json, text: '' }),
    ).toEqual({ checked: false, reason: 'openapi.json has no operation for PUT /api/user' });
    expect(
      checker.check({ method: 'GET', url: '/docs', status: 200, headers: json, text: '{}' }),
    ).toMatchObject({ checked: false });
  });
});
