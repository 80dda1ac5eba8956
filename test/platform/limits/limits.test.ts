import { connect } from 'node:net';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { MAX_JSON_DEPTH } from '../../../src/http/body.js';
import { API_CSP, securityHeaders } from '../../../src/http/security.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

let database: TestDatabase;
let issuer: TokenIssuer;
let app: TestApp;
const apps: TestApp[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
  app = await startTestApp({ database, issuer });
});

afterAll(async () => {
  for (const other of apps) await other.close();
  await app?.close();
  await issuer?.stop();
  await database?.destroy();
});

async function appWith(env: Record<string, string>): Promise<TestApp> {
  const other = await startTestApp({ database, issuer, env });
  apps.push(other);
  return other;
}

/** A raw POST to the tRPC face, so status and headers are visible. */
async function trpcPost(base: string, procedure: string, token: string, body: string) {
  const response = await fetch(`${base}/trpc/${procedure}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('body size limit (16 KiB)', () => {
  const big = JSON.stringify({ name: 'x'.repeat(17 * 1024) });

  it.each([
    ['PATCH', '/api/user'],
    ['POST', '/api/user/profile'],
  ])('%s %s answers 413 in the envelope', async (method, path) => {
    const response = await app.request(method, path, { token: await app.token(), rawBody: big });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 16 KiB' },
    });
  });

  it('a body of exactly 16 KiB is read (and then validated)', async () => {
    const prefix = '{"name":"';
    const body = `${prefix}${'x'.repeat(16 * 1024 - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    const response = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      rawBody: body,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('the tRPC face answers 413 in the envelope too', async () => {
    const response = await trpcPost(app.url, 'updateUser', await app.token(), big);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });
});

describe(`JSON nesting limit (${MAX_JSON_DEPTH})`, () => {
  it.each([
    ['PATCH', '/api/user'],
    ['POST', '/api/user/profile'],
  ])('%s %s refuses a body nested deeper with 400', async (method, path) => {
    const response = await app.request(method, path, {
      token: await app.token(),
      rawBody: `{"name":${nested(MAX_JSON_DEPTH)}}`,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: {
        code: 'VALIDATION_FAILED',
        message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels`,
      },
    });
  });

  it('accepts nesting up to the limit (then the field rules apply)', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      rawBody: `{"name":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.issues).toEqual([expect.objectContaining({ path: 'name' })]);
  });

  it('does not count brackets inside strings', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      rawBody: JSON.stringify({ location: '[{'.repeat(40) + '\\"[' }),
    });
    expect(response.status).toBe(200);
  });

  it('refuses ~8000 levels quickly on both faces, without a 500', async () => {
    const deep = `{"name":${nested(8000)}}`;
    const rest = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      rawBody: deep,
    });
    expect(rest.status).toBe(400);
    const trpc = await trpcPost(app.url, 'updateUser', await app.token(), deep);
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.message).toMatch(/nests deeper/);
  });
});

/** Sends raw bytes and returns everything the server writes before it closes. */
function rawExchange(base: string, bytes: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('header size limit', () => {
  it('answers a request that is not HTTP with the 400 envelope', async () => {
    const raw = await rawExchange(app.url, 'HELLO THERE\r\n\r\n');
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_FAILED' },
    });
  });

  it('answers 413 in the envelope when the headers exceed 16 KiB, and closes', async () => {
    const { port } = new URL(app.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
      socket.write(
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      );
    });
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toMatch(/Connection: close/i);
    expect(JSON.parse(body)).toEqual({
      success: false,
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request headers are larger than 16 KiB' },
    });
  });
});

describe('per-user rate limit', () => {
  it('answers 429 with Retry-After and RateLimit headers once a user is over the limit', async () => {
    const limited = await appWith({ RATE_LIMIT_PER_USER: '3' });
    const token = await issuer.sign(uniqueSubject('limited'));
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i += 1) {
      const ok = await limited.request('PATCH', '/api/user', { token, body: { name: `N${i}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('3;w=60');
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
      remaining.push(ok.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const refused = await limited.request('POST', '/api/user/profile', { token, body: {} });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: 'Too many requests for this user; slow down' },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);

    // The same user is limited on the tRPC face (one limiter), another user is not.
    const trpc = await trpcPost(limited.url, 'updateUser', token, '{"name":"T"}');
    expect(trpc.status).toBe(429);
    expect(Number(trpc.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(trpc.headers.get('ratelimit-remaining')).toBe('0');
    expect(trpc.body.error.data).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      errorCode: 'RATE_LIMITED',
    });
    const error = await limited
      .trpc(token)
      .updateUser.mutate({ name: 'T' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);

    const other = await limited.request('PATCH', '/api/user', {
      token: await issuer.sign(uniqueSubject()),
      body: { name: 'Other' },
    });
    expect(other.status).toBe(200);
  });

  it('sends no RateLimit headers when both limits are off (0)', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      body: { name: 'Unlimited' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toBeNull();
  });
});

describe('per-IP rate limit', () => {
  it('limits one address across users and across both faces', async () => {
    const limited = await appWith({ RATE_LIMIT_PER_IP: '3', RATE_LIMIT_PER_USER: '100' });
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const ok = await limited.request('PATCH', '/api/user', {
        token: await issuer.sign(uniqueSubject()),
        body: { name: 'Ip' },
      });
      statuses.push(ok.status);
      // Both policies apply; the headers describe the tighter one (per IP here).
      expect(ok.headers.get('ratelimit-policy')).toBe('3;w=60, 100;w=60');
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
    }
    const third = await trpcPost(
      limited.url,
      'updateUser',
      await issuer.sign(uniqueSubject()),
      '{"name":"Ip"}',
    );
    statuses.push(third.status);
    expect(statuses).toEqual([200, 200, 200]);

    const rest = await limited.request('POST', '/api/user/profile', {
      token: await issuer.sign(uniqueSubject()),
      body: {},
    });
    expect(rest.status).toBe(429);
    expect(rest.body).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: 'Too many requests from this address; slow down' },
    });
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(rest.headers.get('ratelimit-policy')).toBe('3;w=60');
    expect(rest.headers.get('ratelimit-remaining')).toBe('0');

    const trpc = await trpcPost(
      limited.url,
      'updateUser',
      await issuer.sign(uniqueSubject()),
      '{}',
    );
    expect(trpc.status).toBe(429);
    expect(trpc.body.error.code).toBe('RATE_LIMITED');
    expect(Number(trpc.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Health checks are never limited.
    expect((await limited.request('GET', '/healthz')).status).toBe(200);
  });

  /** PATCHes as a new user with `X-Forwarded-For: forwarded` (none when undefined). */
  const from = async (target: TestApp, forwarded: string | undefined) => {
    const response = await target.request('PATCH', '/api/user', {
      token: await issuer.sign(uniqueSubject()),
      body: { name: 'Forwarded' },
      ...(forwarded !== undefined && { headers: { 'x-forwarded-for': forwarded } }),
    });
    return `${response.status} ${response.headers.get('ratelimit-remaining')}`;
  };

  it('without TRUST_PROXY, X-Forwarded-For changes nothing: every request counts for the peer', async () => {
    const direct = await appWith({ RATE_LIMIT_PER_IP: '3', RATE_LIMIT_PER_USER: '100' });
    // A client writing a new address into each request, as if it were a proxy.
    expect([
      await from(direct, '203.0.113.1'),
      await from(direct, '203.0.113.2'),
      await from(direct, '203.0.113.3, 198.51.100.3'),
    ]).toEqual(['200 2', '200 1', '200 0']);
    expect(await from(direct, '198.51.100.4')).toBe('429 0');
    expect(await from(direct, undefined)).toBe('429 0');
  });

  it('behind a trusted proxy (TRUST_PROXY=1), the client address it appends is counted, not what the client wrote', async () => {
    const proxied = await appWith({
      RATE_LIMIT_PER_IP: '3',
      RATE_LIMIT_PER_USER: '100',
      TRUST_PROXY: '1',
    });
    // The test is the proxy: it appends the address each client connected from.
    const client = '203.0.113.10';
    expect([
      await from(proxied, client),
      await from(proxied, `198.51.100.1, ${client}`),
      await from(proxied, `198.51.100.2, ${client}`),
    ]).toEqual(['200 2', '200 1', '200 0']);
    // The client's own X-Forwarded-For entries do not get it a new count.
    expect(await from(proxied, `198.51.100.3, ${client}`)).toBe('429 0');
    expect(await from(proxied, client)).toBe('429 0');
    // Another client through the same proxy, and the proxy itself, count apart.
    expect(await from(proxied, '203.0.113.20')).toBe('200 2');
    expect(await from(proxied, '2001:db8::20')).toBe('200 2');
    expect(await from(proxied, undefined)).toBe('200 2');
  });

  it('behind two trusted proxies (TRUST_PROXY=2), the address the outer one saw is counted', async () => {
    const proxied = await appWith({
      RATE_LIMIT_PER_IP: '2',
      RATE_LIMIT_PER_USER: '100',
      TRUST_PROXY: '2',
    });
    // client → CDN (appends the client) → load balancer (appends the CDN) → service.
    const cdn = '192.0.2.50';
    const client = '203.0.113.30';
    expect([
      await from(proxied, `${client}, ${cdn}`),
      await from(proxied, `198.51.100.9, ${client}, ${cdn}`),
      await from(proxied, `198.51.100.10, ${client}, ${cdn}`),
    ]).toEqual(['200 1', '200 0', '429 0']);
    expect(await from(proxied, `${client}, 192.0.2.51`)).toBe('429 0');
    expect(await from(proxied, `203.0.113.31, ${cdn}`)).toBe('200 1');
  });
});

describe('security headers', () => {
  it.each([
    ['a success', 'PATCH', '/api/user', { name: 'Headers' }],
    ['an error', 'PATCH', '/api/user', { nope: 1 }],
    ['a 404', 'GET', '/nothing', undefined],
    ['a health check', 'GET', '/healthz', undefined],
  ])('are set on %s', async (_label, method, path, body) => {
    const response = await app.request(method, path, { token: await app.token(), body });
    expect(response.headers.get('content-security-policy')).toBe(API_CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('are set on the tRPC face', async () => {
    const response = await trpcPost(app.url, 'updateUser', await app.token(), '{"name":"T"}');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(API_CSP);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('lets a route replace the CSP with its own (as GET /docs does)', async () => {
    const docsCsp = "default-src 'self'; script-src 'self'";
    const tiny = express();
    tiny.use(securityHeaders());
    tiny.get('/docs', (_req, res) => {
      res.setHeader('Content-Security-Policy', docsCsp);
      res.send('<html></html>');
    });
    tiny.get('/api', (_req, res) => res.json({}));
    const server = tiny.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const docs = await fetch(`${base}/docs`);
      expect(docs.headers.get('content-security-policy')).toBe(docsCsp);
      const api = await fetch(`${base}/api`);
      expect(api.headers.get('content-security-policy')).toBe(API_CSP);
    } finally {
      server.close();
    }
  });
});

describe('CORS', () => {
  const preflight = (base: string, origin: string) =>
    fetch(`${base}/api/user`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('allows no origin by default', async () => {
    const response = await app.request('PATCH', '/api/user', {
      token: await app.token(),
      body: { name: 'Cors' },
      headers: { origin: 'https://app.example.com' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await preflight(app.url, 'https://app.example.com');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows exactly the origins in CORS_ORIGINS', async () => {
    const allowing = await appWith({
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
    });
    const pre = await preflight(allowing.url, 'https://app.example.com');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(pre.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'authorization',
    );
    const call = await allowing.request('PATCH', '/api/user', {
      token: await allowing.token(),
      body: { name: 'Cors' },
      headers: { origin: 'http://localhost:5173' },
    });
    expect(call.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(call.headers.get('access-control-expose-headers')).toContain('Retry-After');

    const other = await preflight(allowing.url, 'https://evil.example.com');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each(['*', 'https://app.example.com/path', 'app.example.com', 'ftp://x.example'])(
    'refuses CORS_ORIGINS=%s at start-up',
    (value) => {
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
    },
  );
});
