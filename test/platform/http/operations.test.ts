import { describe, expect, it } from 'vitest';

import { useTestApp } from '../../helpers/test-app.js';

const { app, database } = useTestApp();

describe('operations', () => {
  it('answers /healthz and /readyz', async () => {
    const health = await app.request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await app.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', database: database.kind });
  });

  it('serves the OpenAPI document', async () => {
    const response = await app.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    // No PUBLIC_URL: relative to where the document was fetched, so Swagger UI calls this server.
    expect(response.body.servers).toEqual([
      {
        url: '/',
        description: 'The server this document was fetched from (set PUBLIC_URL to name it)',
      },
    ]);
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining(['/api/user', '/api/user/profile']),
    );
  });

  it('sends no x-powered-by header', async () => {
    const response = await app.request('GET', '/healthz');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('gives every request an id, echoes a sane incoming one, and logs it', async () => {
    const generated = await app.request('GET', '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await app.request('GET', '/healthz', {
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const refused = await app.request('GET', '/healthz', {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(refused.headers.get('x-request-id')).not.toBe('bad id with spaces');
    const line = app.logs.map((l) => JSON.parse(l)).find((l) => l.reqId === 'trace-123');
    expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/healthz', status: 200 });
  });

  it('never logs the Authorization header or a token, even on failures', async () => {
    const token = await app.token();
    await app.request('PATCH', '/api/user', { token, body: { name: 'Logged' } });
    await app.request('PATCH', '/api/user', { token, body: { favouriteTeam: 'x' } });
    await app.request('PATCH', '/api/user', { token: `${token}x`, body: { name: 'x' } });
    await app.request('PATCH', `/api/user?access_token=${token}`, { body: { name: 'x' } });
    const all = app.logs.join('\n');
    expect(app.logs.length).toBeGreaterThan(3);
    expect(all).not.toContain(token.slice(0, 40));
    expect(all.toLowerCase()).not.toContain('bearer');
    expect(all.toLowerCase()).not.toContain('authorization');
  });
});

describe('a documented path called with a method it does not answer', () => {
  it('answers 405 in the envelope with Allow listing the documented methods of that path', async () => {
    const document = (await app.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.entries(document.paths);
    expect(paths.length).toBeGreaterThan(0);
    const token = await app.token();
    for (const [template, item] of paths) {
      // A path parameter's value does not matter: the method is refused first.
      const path = template.replace(/\{[^}]+\}/g, 'x');
      const documented = Object.keys(item).map((method) => method.toUpperCase());
      const allow = documented.includes('GET') ? [...documented, 'HEAD'].sort() : documented.sort();
      for (const method of ['PUT', 'DELETE', 'PATCH', 'POST', 'GET', 'OPTIONS', 'HEAD']) {
        if (allow.includes(method)) continue;
        const body = ['GET', 'HEAD'].includes(method) ? undefined : {};
        const response = await app.request(method, path, { token, body });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get('allow')).toBe(allow.join(', '));
        if (method === 'HEAD') continue; // no body
        const choices = `${allow.slice(0, -1).join(', ')}${allow.length > 1 ? ' or ' : ''}${allow.at(-1)}`;
        expect(response.body).toEqual({
          success: false,
          error: {
            code: 'METHOD_NOT_ALLOWED',
            message: `${method} is not supported on ${path}: use ${choices}`,
          },
        });
      }
    }
  });

  it('matches paths as the REST face does: trailing slash, letter case, query string', async () => {
    for (const path of ['/api/user/profile/', '/API/User/Profile', '/api/user/profile?x=1']) {
      const response = await app.request('PUT', path, { body: { name: 'x' } });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('needs no token, and leaves documented methods and unknown paths alone', async () => {
    const put = await app.request('PUT', '/api/user/profile', { body: { name: 'x' } });
    expect(put.status).toBe(405);
    const post = await app.request('POST', '/api/user/profile', { body: { name: 'x' } });
    expect(post.status).toBe(401);
    const unknown = await app.request('PUT', '/api/nothing', { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    expect(unknown.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
