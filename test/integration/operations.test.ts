import { describe, expect, it } from 'vitest';

import { useTestApp } from '../helpers/test-app.js';

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
