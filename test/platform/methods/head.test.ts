import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/test-app.js';
import { raw } from '../../helpers/raw-http.js';

/**
 * HEAD is routed as GET on every path: GET's status and headers without a body, with or without a
 * token; on a subscription a 405 with `Allow: GET` that opens no stream.
 */

const { app } = useTestApp();

describe('HEAD', () => {
  it.each([
    ['/api/user', 401],
    ['/api/leaderboard', 401],
    ['/api/user/points', 401],
    ['/trpc/me', 401],
    ['/api/no-such-path', 404],
    ['/trpc/noSuchProcedure', 404],
    ['/api/user/profile', 405],
  ])('HEAD %s without a token answers as GET would (%i), never 204', async (path, status) => {
    const head = await raw(app.url, path, { method: 'HEAD' });
    const get = await raw(app.url, path);
    expect(get.status).toBe(status);
    expect(head.status).toBe(status);
    expect(head.text).toBe('');
    expect(head.headers.get('allow')).toBe(get.headers.get('allow'));
  });

  it('HEAD with a token answers 200 with the GET headers and no body', async () => {
    const token = await app.token();
    const head = await raw(app.url, '/api/user', {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.text).toBe('');
  });

  it('HEAD on a subscription answers 405 with Allow: GET at once and opens no stream', async () => {
    const token = await app.token();
    const paths = [
      '/trpc/myEvents',
      '/trpc/leaderboardEvents?input=%7B%22top%22%3A3%7D',
      // tRPC finds the procedure in the last path segment, URL-decoded.
      '/trpc/my%45vents',
      '/trpc/any/where/leaderboardEvents',
    ];
    const withAndWithoutToken: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${token}` },
    ];
    for (const path of paths) {
      for (const headers of withAndWithoutToken) {
        const head = await raw(app.url, path, {
          method: 'HEAD',
          headers,
          signal: AbortSignal.timeout(5_000),
        });
        expect(head.status, path).toBe(405);
        expect(head.headers.get('allow')).toBe('GET');
        expect(head.headers.get('content-type')).toMatch(/^application\/json/);
        expect(head.text).toBe('');
      }
    }
    expect(app.live.hub.openStreams).toBe(0);
    // A batch cannot carry a subscription: tRPC refuses it, as it does the GET.
    const batch = await raw(app.url, '/trpc/myEvents?batch=1', {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    const batchGet = await raw(app.url, '/trpc/myEvents?batch=1', {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    expect(batch.status).toBe(batchGet.status);
    expect(batch.status).toBeGreaterThanOrEqual(400);
    // GET still opens the stream.
    const controller = new AbortController();
    const get = await fetch(`${app.url}/trpc/myEvents`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^text\/event-stream/);
    controller.abort();
  });
});
