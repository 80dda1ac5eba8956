import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../../../routers/index.js';
import {
  authenticatedProcedure,
  protectedProcedure,
  router,
  serviceProcedure,
} from '../../../src/trpc/init.js';
import { listProcedures } from '../../../src/trpc/procedures.js';
import { dataEvents, openSse } from '../../helpers/live.js';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { createResponseChecker } from '../../helpers/openapi-conformance.js';
import {
  startTestApp,
  uniqueSubject,
  type ApiResponse,
  type TestApp,
} from '../../helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * Service identity over real HTTP with tokens from a JWKS served over HTTP:
 * every fan operation refuses a service token, and the service procedure
 * builder refuses fan tokens, missing scopes and clients the deployment does
 * not trust, on both faces.
 */

let database: TestDatabase;
let issuer: TokenIssuer;
const apps: TestApp[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await issuer?.stop();
  await database?.destroy();
});

async function start(options: Omit<Parameters<typeof startTestApp>[0], 'database' | 'issuer'>) {
  const app = await startTestApp({ database, issuer, ...options });
  apps.push(app);
  return app;
}

const countUsers = async () =>
  Number(
    (
      await database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A plain HTTP call to the tRPC face, answered as JSON. */
async function trpcCall(
  app: TestApp,
  name: string,
  kind: 'query' | 'mutation',
  token: string,
  input?: unknown,
) {
  const query =
    kind === 'query' && input !== undefined
      ? `?input=${encodeURIComponent(JSON.stringify(input))}`
      : '';
  const response = await fetch(`${app.url}/trpc/${name}${query}`, {
    method: kind === 'query' ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(kind === 'mutation' ? { 'content-type': 'application/json' } : {}),
    },
    body: kind === 'mutation' ? JSON.stringify(input ?? {}) : undefined,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as any,
  };
}

/** Every procedure of the service, as its router declares it. */
const everyProcedure = listProcedures(appRouter).map(({ path, kind, meta }) => ({
  name: path,
  kind,
  openapi: meta?.openapi,
  serviceScope: meta?.serviceScope,
}));
/** The fan operations: every procedure that is not a service's. */
const procedures = everyProcedure.filter((procedure) => procedure.serviceScope === undefined);
/** The service operations (serviceProcedure). */
const serviceOperations = everyProcedure.filter((procedure) => procedure.serviceScope);

describe('service operations refuse fan tokens', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await start({});
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 403 INSUFFICIENT_SCOPE with the scope needed on every service operation, both faces', async () => {
    expect(serviceOperations.map((p) => p.name)).toEqual(
      expect.arrayContaining(['recordEvents', 'reverseEvent', 'adminLeaderboardEvents']),
    );
    const fan = await issuer.sign('a-fan');
    for (const { name, kind, openapi, serviceScope } of serviceOperations) {
      if (kind === 'subscription') {
        // tRPC only (no REST path): refused before its first message.
        const reader = await openSse(`${app.url}/trpc/${name}`, { authorization: `Bearer ${fan}` });
        const error = await reader.waitFor((event) => event.event === 'serialized-error');
        await reader.ended;
        expect(dataEvents(reader), name).toEqual([]);
        expect(JSON.parse(error.data).data, name).toMatchObject({
          errorCode: 'INSUFFICIENT_SCOPE',
          httpStatus: 403,
        });
        continue;
      }
      // The scope is checked before the input: any value of a path parameter will do.
      const path = openapi!.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const body = openapi!.method === 'GET' ? undefined : {};
      const rest = await app.request(openapi!.method, path, { token: fan, body });
      expect(rest.status, name).toBe(403);
      expect(rest.body.error.code, name).toBe('INSUFFICIENT_SCOPE');
      expect(rest.headers.get('www-authenticate'), name).toContain(`scope="${serviceScope}"`);
      const trpc = await trpcCall(app, name, kind, fan, {});
      expect(trpc.status, name).toBe(403);
      expect(trpc.body.error.data.errorCode, name).toBe('INSUFFICIENT_SCOPE');
    }
  });
});

describe('fan operations refuse service tokens', () => {
  let app: TestApp;
  const clientId = 'checkin-service';
  let serviceToken: string;

  beforeAll(async () => {
    app = await start({ env: { SERVICE_CLIENT_IDS: clientId } });
    // Trusted, and holding every service scope: still not a fan.
    serviceToken = await issuer.signService(clientId, 'events:write admin');
  });

  it('finds the operations in the router: every REST operation and every procedure', () => {
    expect(procedures.filter((p) => p.openapi).length).toBeGreaterThanOrEqual(10);
    expect(procedures.map((p) => p.kind)).toContain('subscription');
  });

  it('answers 403 FAN_TOKEN_REQUIRED in the envelope on every REST operation', async () => {
    const before = await countUsers();
    for (const { name, openapi } of procedures) {
      if (!openapi) continue;
      const body = openapi.method === 'GET' || openapi.method === 'DELETE' ? undefined : {};
      const response = await app.request(openapi.method, openapi.path, {
        token: serviceToken,
        body,
      });
      expect(response.status, name).toBe(403);
      expect(response.body, name).toEqual({
        success: false,
        error: {
          code: 'FAN_TOKEN_REQUIRED',
          message:
            'This operation acts for a signed-in fan; it cannot be called with a service token ' +
            '(client "checkin-service")',
        },
      });
      expect(response.headers.get('www-authenticate'), name).toBeNull();
    }
    expect(await countUsers()).toBe(before);
  });

  it('answers 403 with errorCode FAN_TOKEN_REQUIRED on every tRPC query and mutation', async () => {
    const before = await countUsers();
    for (const { name, kind } of procedures) {
      if (kind === 'subscription') continue;
      const response = await trpcCall(app, name, kind, serviceToken);
      expect(response.status, name).toBe(403);
      expect(response.body.error, name).toMatchObject({
        code: -32003, // FORBIDDEN
        message: expect.stringContaining('cannot be called with a service token'),
        data: { code: 'FORBIDDEN', httpStatus: 403, errorCode: 'FAN_TOKEN_REQUIRED', path: name },
      });
    }
    expect(await countUsers()).toBe(before);
  });

  it('ends every live subscription with FAN_TOKEN_REQUIRED before any event', async () => {
    const subscriptions = procedures.filter(({ kind }) => kind === 'subscription');
    expect(subscriptions.length).toBeGreaterThan(0);
    const before = await countUsers();
    for (const { name } of subscriptions) {
      const reader = await openSse(`${app.url}/trpc/${name}`, {
        authorization: `Bearer ${serviceToken}`,
      });
      const error = await reader.waitFor((event) => event.event === 'serialized-error');
      await reader.ended;
      expect(dataEvents(reader), name).toEqual([]);
      expect(JSON.parse(error.data).data, name).toMatchObject({
        errorCode: 'FAN_TOKEN_REQUIRED',
        httpStatus: 403,
      });
    }
    expect(await countUsers()).toBe(before);
  });

  it('gives the typed client a TRPCClientError with errorCode FAN_TOKEN_REQUIRED', async () => {
    const error = await app
      .trpc(serviceToken)
      .me.query()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<typeof appRouter>).data).toMatchObject({
      errorCode: 'FAN_TOKEN_REQUIRED',
      httpStatus: 403,
    });
  });

  it('never creates a user for a service, whatever its sub', async () => {
    const token = await issuer.signService(uniqueSubject('svc'), 'events:write', {
      sub: 'looks-like-a-fan',
    });
    const before = await countUsers();
    expect((await app.request('PATCH', '/api/user', { token, body: { name: 'x' } })).status).toBe(
      403,
    );
    expect((await app.request('POST', '/api/user/profile', { token, body: {} })).status).toBe(403);
    expect(await countUsers()).toBe(before);
    const rows = await database.db
      .selectFrom('users')
      .select('id')
      .where('subject', 'in', ['looks-like-a-fan', clientId])
      .execute();
    expect(rows).toEqual([]);
  });

  it('still serves a fan whose token carries the app’s own azp, client_id and scope', async () => {
    const subject = uniqueSubject('fan');
    const token = await issuer.sign(subject, {
      azp: 'fan-app',
      client_id: 'fan-app',
      scope: 'openid profile',
    });
    const response = await app.request('PATCH', '/api/user', { token, body: { name: 'Fan' } });
    expect(response.status).toBe(200);
    const user = await database.db
      .selectFrom('users')
      .select(['issuer', 'subject'])
      .where('id', '=', response.body.data.id)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ issuer: issuer.issuer, subject });
  });
});

// ---------------------------------------------------------------------------
// The service procedure builder, through a router of the test's own served by
// the app's faces (no service operation exists yet).

const PrincipalOutput = z.object({
  success: z.literal(true),
  data: z.object({ clientId: z.string(), scopes: z.array(z.string()) }),
});

const testRouter = router({
  recordTestEvents: serviceProcedure('events:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/test/events',
        summary: 'A service operation needing events:write',
        description: 'Answers with the calling service',
        tags: ['user'],
        errorResponses: [400, 401, 403, 413, 415, 429, 500, 503],
        protect: true,
      },
    })
    .input(z.object({ note: z.string() }).strict())
    .output(PrincipalOutput)
    .mutation(({ ctx }) => ({
      success: true as const,
      data: { clientId: ctx.principal.clientId, scopes: [...ctx.principal.scopes] },
    })),

  runTestAdmin: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/test/admin',
        summary: 'A service operation needing admin',
        description: 'Answers with the calling service',
        tags: ['user'],
        errorResponses: [401, 403, 429, 500, 503],
        protect: true,
      },
    })
    .output(PrincipalOutput)
    .query(({ ctx }) => ({
      success: true as const,
      data: { clientId: ctx.principal.clientId, scopes: [...ctx.principal.scopes] },
    })),

  fanWhoAmI: authenticatedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/test/fan',
        summary: 'A fan operation',
        description: 'Answers with the calling fan',
        tags: ['user'],
        errorResponses: [401, 403, 429, 500, 503],
        protect: true,
      },
    })
    .output(z.object({ success: z.literal(true), data: z.object({ subject: z.string() }) }))
    .query(({ ctx }) => ({ success: true as const, data: { subject: ctx.principal.subject } })),

  fanUserId: protectedProcedure
    .output(z.object({ success: z.literal(true), data: z.object({ userId: z.string() }) }))
    .query(({ ctx }) => ({ success: true as const, data: { userId: ctx.userId } })),
});

describe('serviceProcedure', () => {
  let app: TestApp;
  /** The test router's own openapi.json, as the app serves it. */
  let document: OpenAPIObject;
  let checker: ReturnType<typeof createResponseChecker>;
  beforeAll(async () => {
    app = await start({
      router: testRouter,
      env: { SERVICE_CLIENT_IDS: 'checkin-service, ops-console ,quiz-azp' },
    });
    document = (await app.request('GET', '/openapi.json')).body as OpenAPIObject;
    checker = createResponseChecker(document);
  });

  /** A REST answer of the test router, checked against the document the app serves for it. */
  function conforms(method: string, url: string, response: ApiResponse) {
    const result = checker.check({ method, url, ...response });
    expect(result).toEqual({ checked: true, operation: expect.any(String), errors: [] });
  }

  /** Both faces for one call of recordTestEvents (POST) or runTestAdmin (GET). */
  async function bothFaces(operation: 'events' | 'admin', token: string) {
    const rest =
      operation === 'events'
        ? await app.request('POST', '/api/test/events', { token, body: { note: 'n' } })
        : await app.request('GET', '/api/test/admin', { token });
    conforms(operation === 'events' ? 'POST' : 'GET', `/api/test/${operation}`, rest);
    const trpc =
      operation === 'events'
        ? await trpcCall(app, 'recordTestEvents', 'mutation', token, { note: 'n' })
        : await trpcCall(app, 'runTestAdmin', 'query', token);
    return { rest, trpc };
  }

  async function expectRefused(
    operation: 'events' | 'admin',
    token: string,
    expected: {
      status: number;
      code: string;
      message: string | RegExp;
      wwwAuthenticate: string | null;
    },
  ) {
    const { rest, trpc } = await bothFaces(operation, token);
    const message =
      typeof expected.message === 'string'
        ? expected.message
        : expect.stringMatching(expected.message);
    expect(rest.status).toBe(expected.status);
    expect(rest.body).toEqual({ success: false, error: { code: expected.code, message } });
    expect(rest.headers.get('www-authenticate')).toBe(expected.wwwAuthenticate);
    expect(trpc.status).toBe(expected.status);
    expect(trpc.body.error).toMatchObject({
      message,
      data: { errorCode: expected.code, httpStatus: expected.status },
    });
    expect(trpc.headers.get('www-authenticate')).toBe(expected.wwwAuthenticate);
  }

  it('documents each service operation’s scope as its security requirement, and its 403 codes', () => {
    const paths = document.paths as Record<string, Record<string, any>>;
    const events = paths['/api/test/events']!.post;
    const admin = paths['/api/test/admin']!.get;
    const fan = paths['/api/test/fan']!.get;
    expect(events.security).toEqual([{ serviceAuth: ['events:write'] }]);
    expect(admin.security).toEqual([{ serviceAuth: ['admin'] }]);
    expect(fan.security).toEqual([{ bearerAuth: [] }]);
    // Service tokens are an OAuth 2.0 client-credentials scheme that declares both scopes.
    const schemes = (document.components as any).securitySchemes;
    expect(schemes.serviceAuth).toMatchObject({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: expect.stringMatching(/^https:\/\//) } },
    });
    expect(Object.keys(schemes.serviceAuth.flows.clientCredentials.scopes)).toEqual([
      'events:write',
      'admin',
    ]);
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const codes = (operation: any) =>
      Object.keys(operation.responses['403'].content['application/json'].examples);
    for (const operation of [events, admin]) {
      expect(codes(operation)).toEqual(['INSUFFICIENT_SCOPE', 'CLIENT_NOT_ALLOWED']);
      expect(operation.responses['403'].headers).toHaveProperty('WWW-Authenticate');
    }
    expect(codes(fan)).toEqual(['FAN_TOKEN_REQUIRED']);
    expect(fan.responses['403'].headers).toBeUndefined();
  });

  it('accepts a trusted client holding the scope, with the service principal in ctx', async () => {
    const token = await issuer.signService('checkin-service', 'events:write');
    const { rest, trpc } = await bothFaces('events', token);
    const data = { clientId: 'checkin-service', scopes: ['events:write'] };
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ success: true, data });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data).toEqual({ success: true, data });

    const admin = await issuer.signService('ops-console', ['admin', 'openid']);
    const { rest: adminRest } = await bothFaces('admin', admin);
    expect(adminRest.body.data).toEqual({ clientId: 'ops-console', scopes: ['admin', 'openid'] });
  });

  it('accepts the client named by azp when the token has no client_id', async () => {
    const token = await issuer.signService('quiz-azp', 'events:write', {
      client_id: undefined,
      azp: 'quiz-azp',
      sub: 'some-service-account',
    });
    const { rest } = await bothFaces('events', token);
    expect(rest.status).toBe(200);
    expect(rest.body.data.clientId).toBe('quiz-azp');
  });

  it('refuses a fan token with 403 INSUFFICIENT_SCOPE naming the scope, and creates no user', async () => {
    const before = await countUsers();
    const fan = await issuer.sign(uniqueSubject('fan'), {
      scope: 'openid profile',
      azp: 'fan-app',
    });
    await expectRefused('events', fan, {
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      message:
        'This operation is for services: it needs a service token with the "events:write" ' +
        "scope, not a fan's token",
      wwwAuthenticate: 'Bearer error="insufficient_scope", scope="events:write"',
    });
    expect(await countUsers()).toBe(before);
  });

  it('refuses a service token without the operation’s scope with 403 INSUFFICIENT_SCOPE', async () => {
    const token = await issuer.signService('checkin-service', 'events:write openid');
    await expectRefused('admin', token, {
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      message:
        'This operation needs the "admin" scope; the token of client "checkin-service" has ' +
        '"events:write", "openid"',
      wwwAuthenticate: 'Bearer error="insufficient_scope", scope="admin"',
    });
    const adminOnly = await issuer.signService('ops-console', 'admin');
    await expectRefused('events', adminOnly, {
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      message: /needs the "events:write" scope; the token of client "ops-console" has "admin"$/,
      wwwAuthenticate: 'Bearer error="insufficient_scope", scope="events:write"',
    });
  });

  it('refuses a client SERVICE_CLIENT_IDS does not list with 403 CLIENT_NOT_ALLOWED, scope or not', async () => {
    for (const scopes of ['events:write', 'events:write admin']) {
      const token = await issuer.signService('quiz-service', scopes);
      await expectRefused('events', token, {
        status: 403,
        code: 'CLIENT_NOT_ALLOWED',
        message:
          'The client "quiz-service" is not among the services this deployment trusts ' +
          '(SERVICE_CLIENT_IDS)',
        wwwAuthenticate: null,
      });
    }
    // Allow-list entries are exact: no prefix, no case folding.
    for (const clientId of ['checkin', 'Checkin-Service', 'checkin-service ']) {
      const token = await issuer.signService(clientId, 'events:write');
      const { rest } = await bothFaces('events', token);
      expect(rest.body.error.code, JSON.stringify(clientId)).toBe('CLIENT_NOT_ALLOWED');
    }
  });

  it('refuses a service token naming no client (no client_id, no azp) with 401', async () => {
    const token = await issuer.signService('checkin-service', 'events:write', {
      client_id: undefined,
    });
    await expectRefused('events', token, {
      status: 401,
      code: 'UNAUTHENTICATED',
      message:
        'A service token (one whose "scope" holds events:write or admin) must name its client in ' +
        'a "client_id" or "azp" claim',
      wwwAuthenticate: 'Bearer error="invalid_token"',
    });
  });

  it('refuses a scope claim that is not a string, and service scopes in scp, with 401', async () => {
    const arrayScope = await issuer.sign('checkin-service', {
      client_id: 'checkin-service',
      scope: ['events:write'],
    });
    await expectRefused('events', arrayScope, {
      status: 401,
      code: 'UNAUTHENTICATED',
      message: 'The token\'s "scope" claim must be a space-separated string (RFC 9068)',
      wwwAuthenticate: 'Bearer error="invalid_token"',
    });
    const scp = await issuer.sign('checkin-service', {
      client_id: 'checkin-service',
      scp: ['events:write'],
    });
    await expectRefused('events', scp, {
      status: 401,
      code: 'UNAUTHENTICATED',
      message: /service scope in "scp"/,
      wwwAuthenticate: 'Bearer error="invalid_token"',
    });
  });

  it('refuses a service token on the fan operations of the same router', async () => {
    const token = await issuer.signService('checkin-service', 'events:write');
    const rest = await app.request('GET', '/api/test/fan', { token });
    conforms('GET', '/api/test/fan', rest);
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe('FAN_TOKEN_REQUIRED');
    const trpc = await trpcCall(app, 'fanUserId', 'query', token);
    expect(trpc.body.error.data.errorCode).toBe('FAN_TOKEN_REQUIRED');
  });

  it('judges each call of a tRPC batch by its own procedure', async () => {
    const token = await issuer.signService('checkin-service', 'events:write');
    const response = await fetch(`${app.url}/trpc/runTestAdmin,fanWhoAmI?batch=1&input=%7B%7D`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const [admin, fan] = (await response.json()) as any[];
    expect(admin.error.data.errorCode).toBe('INSUFFICIENT_SCOPE');
    expect(fan.error.data.errorCode).toBe('FAN_TOKEN_REQUIRED');
  });
});

describe('serviceProcedure without SERVICE_CLIENT_IDS', () => {
  it('accepts any client of the issuer that holds the scope', async () => {
    const app = await start({ router: testRouter });
    const clientId = uniqueSubject('any-service');
    const token = await issuer.signService(clientId, 'events:write');
    const response = await app.request('POST', '/api/test/events', { token, body: { note: 'n' } });
    expect(response.status).toBe(200);
    expect(response.body.data.clientId).toBe(clientId);
    // The scope is still required.
    const admin = await app.request('GET', '/api/test/admin', { token });
    expect(admin.status).toBe(403);
    expect(admin.body.error.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('per-client rate limit', () => {
  it('limits each service client on its own bucket, never shared with a fan of the same name', async () => {
    const app = await start({
      router: testRouter,
      env: { RATE_LIMIT_PER_SERVICE: '3', RATE_LIMIT_PER_USER: '2' },
    });
    const name = uniqueSubject('busy');
    const service = await issuer.signService(name, 'events:write');
    const call = (token: string) =>
      app.request('POST', '/api/test/events', { token, body: { note: 'n' } });

    for (let i = 1; i <= 3; i += 1) {
      const ok = await call(service);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(3 - i));
    }
    const limited = await call(service);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: 'Too many requests for this client; slow down' },
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const trpcLimited = await trpcCall(app, 'recordTestEvents', 'mutation', service, { note: 'n' });
    expect(trpcLimited.status).toBe(429);
    expect(trpcLimited.body.error.data.errorCode).toBe('RATE_LIMITED');
    expect(Number(trpcLimited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // A fan whose sub is the client's id has a bucket of its own (the per-user size)...
    const fan = await issuer.sign(name);
    const asFan = await app.request('GET', '/api/test/fan', { token: fan });
    expect(asFan.status).toBe(200);
    expect(asFan.headers.get('ratelimit-limit')).toBe('2');
    expect(asFan.headers.get('ratelimit-remaining')).toBe('1');
    // ...and so has every other client.
    const other = await call(await issuer.signService(uniqueSubject('calm'), 'events:write'));
    expect(other.status).toBe(200);
  });

  it('is off with RATE_LIMIT_PER_SERVICE=0 while the per-user limit still holds', async () => {
    const app = await start({
      router: testRouter,
      env: { RATE_LIMIT_PER_SERVICE: '0', RATE_LIMIT_PER_USER: '1' },
    });
    const service = await issuer.signService(uniqueSubject('free'), 'events:write');
    for (let i = 0; i < 3; i += 1) {
      const response = await app.request('POST', '/api/test/events', {
        token: service,
        body: { note: 'n' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBeNull();
    }
    const fan = await issuer.sign(uniqueSubject('fan'));
    expect((await app.request('GET', '/api/test/fan', { token: fan })).status).toBe(200);
    expect((await app.request('GET', '/api/test/fan', { token: fan })).status).toBe(429);
  });
});
