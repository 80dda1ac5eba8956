import { describe, expect, it } from 'vitest';
import { documentedPaths, methodNotAllowed } from '../../src/http/rest-face.js';

const paths = documentedPaths({
  paths: {
    '/api/things': { get: {}, summary: 'not a method' },
    '/api/things/{id}': { get: {}, delete: {}, parameters: [] },
    '/healthz': { get: {} },
  },
});

describe('methodNotAllowed', () => {
  it('collects the methods of each documented path, path parameters included', () => {
    expect(paths.map(({ template, methods }) => [template, methods])).toEqual([
      ['/api/things', ['GET']],
      ['/api/things/{id}', ['GET', 'DELETE']],
      ['/healthz', ['GET']],
    ]);
  });

  it('refuses another method on a known path, naming the allowed ones', () => {
    const error = methodNotAllowed(paths, 'PATCH', '/api/things/42?x=1');
    expect(error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      allow: ['DELETE', 'GET', 'HEAD'],
      message: 'PATCH is not supported on /api/things/42: use DELETE, GET or HEAD',
    });
    expect(methodNotAllowed(paths, 'POST', '/api/things/')?.allow).toEqual(['GET', 'HEAD']);
    expect(methodNotAllowed(paths, 'POST', '/healthz')?.message).toBe(
      'POST is not supported on /healthz: use GET or HEAD',
    );
  });

  it('refuses HEAD where there is no GET', () => {
    const post = documentedPaths({ paths: { '/api/user/profile': { post: {} } } });
    expect(methodNotAllowed(post, 'HEAD', '/api/user/profile')).toMatchObject({
      allow: ['POST'],
      message: 'HEAD is not supported on /api/user/profile: use POST',
    });
  });

  it('lets documented methods, unknown paths and HEAD where GET is through', () => {
    expect(methodNotAllowed(paths, 'DELETE', '/api/things/42')).toBeUndefined();
    expect(methodNotAllowed(paths, 'GET', '/api/things')).toBeUndefined();
    expect(methodNotAllowed(paths, 'PUT', '/api/things/42/parts')).toBeUndefined();
    expect(methodNotAllowed(paths, 'HEAD', '/api/things/42')).toBeUndefined();
  });
});
