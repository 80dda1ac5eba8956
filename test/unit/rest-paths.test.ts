import { getPathRegExp, normalizePath } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/index.js';
import { restPathIndex } from '../../src/http/rest-paths.js';
import { buildOpenApiDocument } from '../../src/openapi.js';

const document = buildOpenApiDocument(appRouter, { serverUrl: '/' });
const match = restPathIndex(document);
const templates = Object.keys(document.paths ?? {});

/** What every pattern, tested one by one as the adapter does, says: the templates the path matches. */
function byPatterns(path: string): string[] {
  return templates.filter((template) => getPathRegExp(normalizePath(template)).test(path));
}

/** The templates `match` found. */
function found(path: string): string[] {
  return match(path).map(({ template }) => template);
}

describe('the REST path index (methods.ts and operations.ts)', () => {
  const paths = templates.map(normalizePath);
  const requests = [
    ...paths,
    ...paths.map((path) => path.toUpperCase()),
    ...paths.map((path) => path.replace(/\{[^}]+\}/g, '0190a1b2')),
    '/api/leaderboard/me',
    '/api/admin/fans/x/points',
    '/api/nothing',
    '/api/user/extra',
  ];

  it.each(requests)('%s matches what the patterns match, in the same order', (path) => {
    expect(found(path)).toEqual(byPatterns(path));
  });

  it('gives a path without parameters its methods and operations', () => {
    const [user, ...others] = match('/api/user');
    expect(others).toEqual([]);
    expect([...user!.methods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(user!.operations.get('PATCH')).toBe('updateUser');
    expect(user!.operations.get('HEAD')).toBe('me');
    expect(match('/API/User')).toBe(match('/api/user'));
    expect(match('/api/nothing')).toEqual([]);
  });
});
