import { describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/index.js';
import { operationResolver } from '../../src/http/operations.js';
import { buildOpenApiDocument } from '../../src/openapi.js';
import { listProcedures } from '../../src/trpc/procedures.js';

const resolve = operationResolver(
  buildOpenApiDocument(appRouter, { serverUrl: '/' }),
  listProcedures(appRouter),
);

describe('operation names (the metrics label and the log field)', () => {
  it('names a REST request by the operationId of its path and method', () => {
    expect(resolve('PATCH', '/api/user')).toEqual({ name: 'updateUser', face: 'rest' });
    expect(resolve('GET', '/api/user?fields=all')).toEqual({ name: 'me', face: 'rest' });
    expect(resolve('HEAD', '/api/user')).toEqual({ name: 'me', face: 'rest' });
    expect(resolve('DELETE', '/api/user/')).toEqual({ name: 'deleteAccount', face: 'rest' });
    expect(resolve('GET', '/api/leaderboard/me')).toEqual({
      name: 'leaderboardAroundMe',
      face: 'rest',
    });
    expect(resolve('POST', '/api/events/reversals')).toEqual({
      name: 'reverseEvent',
      face: 'rest',
    });
  });

  it('names a /trpc call by its procedure, a batch of several as batch', () => {
    expect(resolve('GET', '/trpc/me')).toEqual({ name: 'me', face: 'trpc' });
    expect(resolve('GET', '/TRPC/me')).toEqual({ name: 'me', face: 'trpc' });
    expect(resolve('POST', '/trpc/updateUser?batch=1')).toEqual({
      name: 'updateUser',
      face: 'trpc',
    });
    expect(resolve('GET', '/trpc/me,quests?batch=1&input=%7B%7D')).toEqual({
      name: 'batch',
      face: 'trpc',
    });
    expect(resolve('GET', '/trpc/myEvents?input=%7B%7D')).toEqual({
      name: 'myEvents',
      face: 'trpc',
    });
  });

  it('names the app’s own routes', () => {
    expect(resolve('GET', '/healthz')).toEqual({ name: 'healthz', face: 'other' });
    expect(resolve('GET', '/readyz')).toEqual({ name: 'readyz', face: 'other' });
    expect(resolve('GET', '/openapi.json')).toEqual({ name: 'openapi', face: 'other' });
    expect(resolve('GET', '/docs/')).toEqual({ name: 'docs', face: 'other' });
    expect(resolve('GET', '/docs/swagger-ui.css')).toEqual({ name: 'docs', face: 'other' });
  });

  it('never makes a label of what a client invents', () => {
    expect(resolve('GET', '/api/nothing-here')).toEqual({ name: 'unknown', face: 'rest' });
    expect(resolve('PUT', '/api/user')).toEqual({ name: 'unknown', face: 'rest' });
    expect(resolve('GET', '/trpc/noSuchProcedure')).toEqual({ name: 'unknown', face: 'trpc' });
    expect(resolve('GET', '/trpc/me,noSuchProcedure?batch=1')).toEqual({
      name: 'unknown',
      face: 'trpc',
    });
    expect(resolve('GET', '/trpc/%E0%A4%A')).toEqual({ name: 'unknown', face: 'trpc' });
    expect(resolve('GET', '//evil.example/api/user')).toEqual({ name: 'unknown', face: 'rest' });
  });
});
