import { describe, expect, it } from 'vitest';
import { methodRule } from '../../src/http/methods.js';
import type { ProcedureInfo } from '../../src/trpc/procedures.js';

const procedure = (path: string, kind: ProcedureInfo['kind']): ProcedureInfo => ({
  path,
  kind,
  meta: undefined,
  input: undefined,
});

const rule = methodRule(
  {
    paths: {
      '/api/things': { get: {}, summary: 'not a method' },
      '/api/things/{id}': { get: {}, delete: {}, parameters: [] },
      '/healthz': { get: {} },
      '/api/user/profile': { post: {} },
    },
  },
  [
    procedure('me', 'query'),
    procedure('updateUser', 'mutation'),
    procedure('myEvents', 'subscription'),
  ],
);

describe('the method rules of the REST paths', () => {
  it('refuses another method on a known path, naming the allowed ones', () => {
    expect(rule('PATCH', '/api/things/42?x=1')).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      allow: ['DELETE', 'GET', 'HEAD'],
      message: 'PATCH is not supported on /api/things/42: use DELETE, GET or HEAD',
    });
    expect(rule('POST', '/api/things/')?.allow).toEqual(['GET', 'HEAD']);
    expect(rule('TRACE', '/API/Things')?.allow).toEqual(['GET', 'HEAD']);
    expect(rule('POST', '/healthz')?.message).toBe(
      'POST is not supported on /healthz: use GET or HEAD',
    );
  });

  it('refuses HEAD where there is no GET', () => {
    expect(rule('HEAD', '/api/user/profile')).toMatchObject({
      allow: ['POST'],
      message: 'HEAD is not supported on /api/user/profile: use POST',
    });
  });

  it('lets documented methods, unknown paths and HEAD where GET is through', () => {
    expect(rule('DELETE', '/api/things/42')).toBeUndefined();
    expect(rule('GET', '/api/things')).toBeUndefined();
    expect(rule('PUT', '/api/things/42/parts')).toBeUndefined();
    expect(rule('HEAD', '/api/things/42')).toBeUndefined();
  });
});

describe('the method rules of /trpc', () => {
  it('leaves GET and POST to tRPC, and HEAD where it stands for a GET that ends', () => {
    for (const path of ['/trpc/me', '/trpc/updateUser', '/trpc/myEvents', '/trpc/nothing']) {
      expect(rule('GET', path)).toBeUndefined();
      expect(rule('POST', path)).toBeUndefined();
    }
    expect(rule('HEAD', '/trpc/me')).toBeUndefined();
    expect(rule('HEAD', '/trpc/updateUser')).toBeUndefined();
    expect(rule('HEAD', '/trpc/myEvents?batch=1')).toBeUndefined();
  });

  it('refuses every other method with what that kind of procedure answers', () => {
    expect(rule('TRACE', '/trpc/me')).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      allow: ['GET', 'HEAD'],
      message: 'TRACE is not supported on /trpc/me: use GET or HEAD',
    });
    expect(rule('PUT', '/trpc/updateUser')?.allow).toEqual(['POST']);
    expect(rule('DELETE', '/TRPC/updateUser?x=1')?.allow).toEqual(['POST']);
    expect(rule('HEAD', '/trpc/myEvents')?.allow).toEqual(['GET']);
  });

  it('finds procedures as tRPC does: last segment, URL-decoded, batches split', () => {
    expect(rule('HEAD', '/trpc/my%45vents')?.allow).toEqual(['GET']);
    expect(rule('HEAD', '/trpc/any/where/myEvents')?.allow).toEqual(['GET']);
    expect(rule('TRACE', '/trpc/me,me?batch=1')?.allow).toEqual(['GET', 'HEAD']);
    // A batch answers only what all of its calls do.
    const mixed = rule('TRACE', '/trpc/me,updateUser?batch=1');
    expect(mixed?.allow).toEqual([]);
    expect(mixed?.message).toBe(
      'TRACE is not supported on /trpc/me,updateUser: no method serves these calls in one batch',
    );
  });

  it('answers an unknown procedure or a malformed path 404', () => {
    expect(rule('TRACE', '/trpc/nothing')).toMatchObject({ code: 'NOT_FOUND' });
    expect(rule('TRACE', '/trpc/me,nothing?batch=1')).toMatchObject({ code: 'NOT_FOUND' });
    expect(rule('TRACE', '/trpc/%E0%A4%A')).toMatchObject({ code: 'NOT_FOUND' });
    // tRPC answers a malformed path itself on the methods it serves.
    expect(rule('GET', '/trpc/%E0%A4%A')).toBeUndefined();
  });
});
