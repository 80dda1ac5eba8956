import { readFile } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import type { OpenAPIObject, OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../scripts/openapi.js';
import {
  HEALTH_PATHS,
  listOperations,
  metaProblems,
  OPERATIONS,
  operationTableProblems,
  TAGS,
} from '../../src/openapi.js';
import { appRouter } from '../../routers/index.js';
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
      const row = OPERATIONS[operation.operationId];
      expect(operation.security).toEqual(row?.auth === 'bearer' ? [{ bearerAuth: [] }] : []);
    }
  });

  it('gives every error response the contract envelope with real examples, and nothing else', () => {
    const schemas = document.components?.schemas ?? {};
    expect(Object.keys(schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    expect(schemas.ErrorEnvelope).toBeDefined();
    for (const { operation } of procedureOperations()) {
      const row = OPERATIONS[operation.operationId]!;
      const statuses = Object.keys(operation.responses).map(Number);
      expect(statuses.filter((status) => status >= 400)).toEqual([...row.errors].sort());
      for (const status of row.errors) {
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

describe('the per-operation table', () => {
  it('has exactly one row per operation', () => {
    expect(operationTableProblems(document, appRouter)).toEqual([]);
  });

  it('reports an operation without a row, and a row without an operation', () => {
    const paths = structuredClone(document.paths) as Json;
    paths['/api/news'] = { get: { operationId: 'teamNews', responses: {} } };
    delete paths['/api/user/profile'];
    expect(operationTableProblems({ paths }, appRouter)).toEqual([
      'operation teamNews has no row in OPERATIONS (src/openapi.ts)',
      'OPERATIONS row onboardProfile matches no operation',
    ]);
  });

  it('reports procedure meta that declares tags or error statuses (OPERATIONS owns them)', () => {
    expect(metaProblems('me', { tags: ['user'] })).toHaveLength(1);
    expect(metaProblems('me', { errorResponses: [401] })).toHaveLength(1);
    expect(metaProblems('me', {})).toEqual([]);
    const procedures = appRouter._def.procedures as Record<
      string,
      { _def: { meta?: OpenApiMeta } }
    >;
    for (const id of Object.keys(OPERATIONS)) {
      expect(metaProblems(id, procedures[id]?._def.meta?.openapi)).toEqual([]);
    }
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
