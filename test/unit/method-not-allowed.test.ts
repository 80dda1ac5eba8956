import type { OpenApiProcedureRecord } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { documentedPaths, methodNotAllowed } from '../../src/http/rest-face.js';
import { publicProcedure, router } from '../../src/trpc/init.js';

const out = z.object({ ok: z.boolean() });
const things = router({
  listThings: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/api/things' } })
    .output(out)
    .query(() => ({ ok: true })),
  getThing: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/api/things/{id}' } })
    .input(z.object({ id: z.string() }))
    .output(out)
    .query(() => ({ ok: true })),
  removeThing: publicProcedure
    .meta({ openapi: { method: 'DELETE', path: '/api/things/{id}/' } })
    .input(z.object({ id: z.string() }))
    .output(out)
    .mutation(() => ({ ok: true })),
  internal: publicProcedure.output(out).query(() => ({ ok: true })),
});
const paths = documentedPaths(things._def.procedures as OpenApiProcedureRecord);

describe('methodNotAllowed', () => {
  it('collects the methods of each path from the OpenAPI meta, path parameters included', () => {
    expect(paths.map(({ template, methods }) => [template, methods])).toEqual([
      ['/api/things', ['GET']],
      ['/api/things/{id}', ['GET', 'DELETE']],
    ]);
  });

  it('refuses another method on a known path, naming the allowed ones', () => {
    const error = methodNotAllowed(paths, 'PATCH', '/api/things/42?x=1');
    expect(error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      allow: ['DELETE', 'GET'],
      message: 'PATCH is not supported on /api/things/42: use DELETE or GET',
    });
    expect(methodNotAllowed(paths, 'POST', '/api/things/')?.allow).toEqual(['GET']);
  });

  it('lets documented methods, unknown paths and HEAD through', () => {
    expect(methodNotAllowed(paths, 'DELETE', '/api/things/42')).toBeUndefined();
    expect(methodNotAllowed(paths, 'GET', '/api/things')).toBeUndefined();
    expect(methodNotAllowed(paths, 'PUT', '/api/things/42/parts')).toBeUndefined();
    expect(methodNotAllowed(paths, 'HEAD', '/api/things/42')).toBeUndefined();
  });
});
