import { describe, expect, it } from 'vitest';
import { allowedMethods, route, type Route } from './routes.js';
import { useTestApp, type TestApp } from './test-app.js';
import { signWithForeignKey } from './token-issuer.js';

/**
 * Shared suites an operation's test folder opts into with one line
 * (`test/operations/<operation>/suites.test.ts`): what every operation owes its callers whatever
 * it does, over real HTTP on both faces, generated from the router's meta (test/helpers/routes.ts),
 * so a new operation gets them by naming itself and no route is declared twice.
 *
 * - `securitySuite`: no token, a malformed token and a token signed by a stranger's key are 401
 *   UNAUTHENTICATED in the envelope; a fan's operation refuses a service token (403
 *   FAN_TOKEN_REQUIRED), a service's operation refuses a fan token and a service token without its
 *   scope (403 INSUFFICIENT_SCOPE naming the scope); the right kind of token gets past all of it.
 * - `errorSuite`: on the operation's REST path another method is 405 with `Allow`; an operation
 *   that reads a body refuses a body that is not JSON by media type (415), one over its limit
 *   (meta.maxBodyKiB, else 16 KiB: 413, while a body of exactly the limit is read), and malformed
 *   JSON (400 VALIDATION_FAILED), on both faces.
 */

/** A trusted service client of the suites' app; any client id is trusted when none are listed. */
const SERVICE_CLIENT = 'suite-service';
const OTHER_SCOPE: Record<string, string> = { 'events:write': 'admin', admin: 'events:write' };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function send(
  app: TestApp,
  method: string,
  path: string,
  init: { token?: string; contentType?: string; body?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.contentType !== undefined) headers['content-type'] = init.contentType;
  const response = await fetch(`${app.url}${path}`, { method, headers, body: init.body });
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** The operation over REST (its documented method and filled path), with a JSON body if it reads one. */
function rest(app: TestApp, operation: Route, token?: string, body = '{}') {
  return send(app, operation.method, operation.path, {
    ...(token !== undefined && { token }),
    ...(operation.hasBody && { contentType: 'application/json', body }),
  });
}

/** The operation over /trpc: a query as GET without input, a mutation as POST of `{}`. */
function trpc(app: TestApp, operation: Route, token?: string, body = '{}') {
  const path = `/trpc/${operation.name}`;
  const auth = token === undefined ? {} : { token };
  return operation.kind === 'query'
    ? send(app, 'GET', path, auth)
    : send(app, 'POST', path, { ...auth, contentType: 'application/json', body });
}

/** The error code of an answer from either face: the envelope's, or tRPC's `data.errorCode`. */
function codeOf(answer: Answer): string | undefined {
  return answer.body?.success === false
    ? answer.body.error?.code
    : answer.body?.error?.data?.errorCode;
}

function expectEnvelope(answer: Answer, status: number, code: string, where: string) {
  expect(answer.status, `${where}: ${answer.text}`).toBe(status);
  expect(answer.body, where).toEqual({
    success: false,
    error: expect.objectContaining({ code, message: expect.any(String) }),
  });
}

function expectTrpcError(answer: Answer, status: number, code: string, where: string) {
  expect(answer.status, `${where}: ${answer.text}`).toBe(status);
  expect(codeOf(answer), where).toBe(code);
}

/** A token of the kind the operation serves: a fan's, or a service's holding its scope. */
function rightToken(app: TestApp, operation: Route): Promise<string> {
  return operation.serviceScope === undefined
    ? app.token()
    : app.serviceToken(SERVICE_CLIENT, operation.serviceScope);
}

/** The security suite of operation `name`, on `app` (the file's own app when omitted). */
export function securitySuite(name: string, app: TestApp = useTestApp().app): void {
  const operation = route(name);
  const where = `${operation.method} ${operation.template}`;
  describe(`${name} (${where}): security`, () => {
    it('answers 401 UNAUTHENTICATED in the envelope without a token, on both faces', async () => {
      const answer = await rest(app, operation);
      expectEnvelope(answer, 401, 'UNAUTHENTICATED', where);
      expect(answer.headers.get('www-authenticate'), where).toMatch(/^Bearer\b/);
      expectTrpcError(await trpc(app, operation), 401, 'UNAUTHENTICATED', `/trpc/${name}`);
    });

    it.each([
      ['a malformed token', async () => 'not-a-jwt'],
      [
        'a token signed by a key the issuer does not publish',
        async (app: TestApp) => signWithForeignKey({ sub: 'stranger', iss: app.issuer.issuer }),
      ],
    ])('answers 401 UNAUTHENTICATED to %s, on both faces', async (_, make) => {
      const token = await make(app);
      expectEnvelope(await rest(app, operation, token), 401, 'UNAUTHENTICATED', where);
      expectTrpcError(await trpc(app, operation, token), 401, 'UNAUTHENTICATED', `/trpc/${name}`);
    });

    if (operation.serviceScope === undefined) {
      it('refuses a service token with 403 FAN_TOKEN_REQUIRED, on both faces', async () => {
        const token = await app.serviceToken(SERVICE_CLIENT, ['events:write', 'admin']);
        expectEnvelope(await rest(app, operation, token), 403, 'FAN_TOKEN_REQUIRED', where);
        expectTrpcError(
          await trpc(app, operation, token),
          403,
          'FAN_TOKEN_REQUIRED',
          `/trpc/${name}`,
        );
      });
    } else {
      const scope = operation.serviceScope;
      it.each([
        ['a fan token', (app: TestApp) => app.token()],
        [
          'a service token without the scope',
          (app: TestApp) => app.serviceToken(SERVICE_CLIENT, OTHER_SCOPE[scope] ?? 'events:write'),
        ],
      ])(
        `refuses %s with 403 INSUFFICIENT_SCOPE naming ${scope}, on both faces`,
        async (_, make) => {
          const token = await make(app);
          const answer = await rest(app, operation, token);
          expectEnvelope(answer, 403, 'INSUFFICIENT_SCOPE', where);
          expect(answer.headers.get('www-authenticate'), where).toContain(`scope="${scope}"`);
          expectTrpcError(
            await trpc(app, operation, token),
            403,
            'INSUFFICIENT_SCOPE',
            `/trpc/${name}`,
          );
        },
      );
    }

    it(`lets ${operation.serviceScope === undefined ? 'a fan token' : `a service token with ${operation.serviceScope}`} through, on both faces`, async () => {
      const token = await rightToken(app, operation);
      for (const answer of [await rest(app, operation, token), await trpc(app, operation, token)]) {
        expect(answer.status, `${where}: ${answer.text}`).toBeLessThan(500);
        expect([401, 403], `${where}: ${answer.text}`).not.toContain(answer.status);
      }
    });
  });
}

/** The error suite of operation `name`, on `app` (the file's own app when omitted). */
export function errorSuite(name: string, app: TestApp = useTestApp().app): void {
  const operation = route(name);
  const where = `${operation.method} ${operation.template}`;
  describe(`${name} (${where}): errors`, () => {
    const allow = allowedMethods(operation.template);
    const other = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !allow.includes(m));

    it(`answers ${other ?? 'another method'} on its path with 405 METHOD_NOT_ALLOWED and Allow: ${allow.join(', ')}`, async () => {
      expect(other, `${where}: every method is taken`).toBeDefined();
      const answer = await send(app, other!, operation.path, {
        token: await rightToken(app, operation),
        ...(other !== 'GET' &&
          other !== 'DELETE' && { contentType: 'application/json', body: '{}' }),
      });
      expectEnvelope(answer, 405, 'METHOD_NOT_ALLOWED', `${other} ${operation.template}`);
      expect(answer.headers.get('allow'), where).toBe(allow.join(', '));
    });

    if (!operation.hasBody) return;
    const limit = operation.maxBodyKiB * 1024;
    /** A JSON object of exactly `bytes` bytes. */
    const bodyOf = (bytes: number) =>
      `{"padding":"${'x'.repeat(bytes - '{"padding":""}'.length)}"}`;

    it('refuses a body that is not JSON by its media type with 415 UNSUPPORTED_MEDIA_TYPE, on both faces', async () => {
      const token = await rightToken(app, operation);
      for (const [path, method] of [
        [operation.path, operation.method],
        [`/trpc/${name}`, 'POST'],
      ] as const) {
        const answer = await send(app, method, path, {
          token,
          contentType: 'text/plain',
          body: '{}',
        });
        expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(415);
        expect(codeOf(answer), `${method} ${path}`).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it(`refuses a body over ${operation.maxBodyKiB} KiB with 413 PAYLOAD_TOO_LARGE and reads one of exactly ${operation.maxBodyKiB} KiB, on both faces`, async () => {
      const token = await rightToken(app, operation);
      const over = await rest(app, operation, token, bodyOf(limit + 1));
      expectEnvelope(over, 413, 'PAYLOAD_TOO_LARGE', where);
      expect(over.body.error.message).toBe(
        `The request body is larger than ${operation.maxBodyKiB} KiB`,
      );
      const trpcOver = await trpc(app, operation, token, bodyOf(limit + 1));
      expectTrpcError(trpcOver, 413, 'PAYLOAD_TOO_LARGE', `/trpc/${name}`);
      for (const answer of [
        await rest(app, operation, token, bodyOf(limit)),
        await trpc(app, operation, token, bodyOf(limit)),
      ]) {
        expect(answer.status, `${where}: ${answer.text}`).not.toBe(413);
        expect(answer.status, `${where}: ${answer.text}`).toBeLessThan(500);
      }
    });

    it('refuses malformed JSON with 400 VALIDATION_FAILED, on both faces', async () => {
      const token = await rightToken(app, operation);
      expectEnvelope(await rest(app, operation, token, '{"a":'), 400, 'VALIDATION_FAILED', where);
      expectTrpcError(
        await trpc(app, operation, token, '{"a":'),
        400,
        'VALIDATION_FAILED',
        `/trpc/${name}`,
      );
    });
  });
}

/**
 * Both suites for each operation named, on one app and database for the file: the one line an
 * operation's folder opts in with.
 */
export function operationSuites(...names: string[]): void {
  const { app } = useTestApp();
  for (const name of names) {
    securitySuite(name, app);
    errorSuite(name, app);
  }
}
