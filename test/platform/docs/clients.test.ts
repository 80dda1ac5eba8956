import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TRPCClientError } from '@trpc/client';
import createClient, { type Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../../routers/index.js';
import { onboardOverRest } from '../../clients/rest-client.example.js';
import type { paths } from '../../../client/src/openapi-types.js';
import { onboardOverTrpc } from '../../clients/trpc-client.example.js';
import { recordCheckins } from '../../clients/events-client.example.js';
import { assertResponseConforms } from '../../helpers/openapi-conformance.js';

import { startTestApp, uniqueSubject, type TestApp, useTestApp } from '../../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The walkthroughs whose snippets these tests run, as written. */
const GUIDE = await readFile(new URL('docs/GUIDE.md', `file://${ROOT}/`), 'utf8');

const { app, database } = useTestApp();

/** openapi-fetch on the generated types; every response it gets is checked against openapi.json. */
function restClient(token: string) {
  const conformance: Middleware = {
    async onResponse({ request, response }) {
      assertResponseConforms({
        method: request.method,
        url: request.url,
        status: response.status,
        headers: response.headers,
        text: await response.clone().text(),
      });
    },
  };
  const client = createClient<paths>({
    baseUrl: app.url,
    headers: { authorization: `Bearer ${token}` },
  });
  client.use(conformance);
  return client;
}

/** The body of docs/GUIDE.md's section under `heading`, up to the next heading of that level or higher. */
function guideSection(heading: string): string {
  const start = GUIDE.indexOf(`\n${heading}\n`);
  expect(start, `docs/GUIDE.md has "${heading}"`).toBeGreaterThan(-1);
  const level = heading.split(' ', 1)[0] as string;
  const rest = GUIDE.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] as string,
  );
}

describe('the generated REST client (openapi-fetch)', () => {
  it('updates and onboards with typed bodies and results: 200, then 201, then 200', async () => {
    const api = restClient(await app.token());
    const patched = await api.PATCH('/api/user', {
      body: { handle: `@${uniqueSubject('r').replaceAll('-', '_').slice(0, 28)}`, name: 'Rest' },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data?.data.name).toBe('Rest');

    const first = await api.POST('/api/user/profile', { body: { favoriteTeam: 'Benfica' } });
    expect(first.response.status).toBe(201);
    expect(first.data?.data.questSync.pointsAwarded).toBe(150);
    const again = await api.POST('/api/user/profile', { body: {} });
    expect(again.response.status).toBe(200);
    expect(again.data?.data.questSync.pointsAwarded).toBe(0);
  });

  it('gets the error envelope, typed, for a 400', async () => {
    const api = restClient(await app.token());
    // A typo from data the compiler never saw: the service refuses it at run time.
    const body = JSON.parse('{"favouriteTeam":"Arsenal"}') as Record<string, string>;
    const { data, error, response } = await api.PATCH('/api/user', { body });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe('VALIDATION_FAILED');
    expect(error?.error.issues).toEqual([
      { path: 'favouriteTeam', message: 'Unknown field "favouriteTeam"' },
    ]);
  });

  it('gets a 409 HANDLE_TAKEN when another user holds the handle', async () => {
    const handle = uniqueSubject('h').replaceAll('-', '_').slice(0, 30);
    const owner = restClient(await app.token());
    expect((await owner.PATCH('/api/user', { body: { handle } })).response.status).toBe(200);
    const other = restClient(await app.token());
    const { error, response } = await other.POST('/api/user/profile', {
      body: { handle: handle.toUpperCase() },
    });
    expect(response.status).toBe(409);
    expect(error?.error.code).toBe('HANDLE_TAKEN');
  });

  it('gets a 401 UNAUTHENTICATED with WWW-Authenticate for a bad token', async () => {
    const { error, response } = await restClient('not-a-jwt').POST('/api/user/profile', {
      body: {},
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(error?.error.code).toBe('UNAUTHENTICATED');
  });
});

describe('the error examples in openapi.json', () => {
  it('are what the service really sends', async () => {
    const document = JSON.parse(await readFile(new URL('openapi.json', `file://${ROOT}/`), 'utf8'));
    const example = (path: string, method: string, status: number, code: string) =>
      document.paths[path][method].responses[status].content['application/json'].examples[code]
        .value;
    const token = await app.token();
    const cases = [
      ['/api/user', 'patch', 400, 'VALIDATION_FAILED', { token, body: { favouriteTeam: 'x' } }],
      ['/api/user', 'patch', 401, 'UNAUTHENTICATED', { body: { name: 'x' } }],
      [
        '/api/user',
        'patch',
        413,
        'PAYLOAD_TOO_LARGE',
        { token, body: { name: 'x'.repeat(17_000) } },
      ],
      [
        '/api/user',
        'patch',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        { token, rawBody: 'x', contentType: 'text/plain' },
      ],
      ['/api/user/points?cursor=bogus', 'get', 400, 'VALIDATION_FAILED', { token }],
      ['/api/leaderboard/me', 'get', 404, 'NOT_FOUND', { token }],
    ] as const;
    for (const [url, method, status, code, options] of cases) {
      const response = await app.request(method.toUpperCase(), url, options);
      expect(response.status, url).toBe(status);
      expect(response.body, `${method} ${url}`).toEqual(
        example(url.split('?')[0] as string, method, status, code),
      );
    }
  });
});

describe('the typed tRPC client', () => {
  it('reports contract codes in error.data', async () => {
    const error = await app
      .trpc(await app.token())
      .updateUser.mutate({})
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data;
    expect(data?.errorCode).toBe('VALIDATION_FAILED');
    expect(data?.httpStatus).toBe(400);
  });
});

describe('docs/GUIDE.md usage sections', () => {
  it('shows the tRPC client example byte for byte, and it runs', async () => {
    const [snippet] = codeBlocks(guideSection('### The typed tRPC client'), 'ts');
    const file = await readFile(new URL('../../clients/trpc-client.example.ts', import.meta.url));
    expect(snippet).toBe(file.toString('utf8'));
    const handle = uniqueSubject('fan').replaceAll('-', '_').slice(0, 30);
    const result = await onboardOverTrpc(app.url, await app.token(), `@${handle}`);
    expect(result).toEqual({ handle, points: 150, rank: expect.any(Number) });
    // The handle is the caller's: a second fan following the example with their own pick
    // gets theirs, and one who copies the first fan's gets 409 HANDLE_TAKEN.
    const other = uniqueSubject('fan').replaceAll('-', '_').slice(0, 30);
    expect((await onboardOverTrpc(app.url, await app.token(), `@${other}`)).handle).toBe(other);
    await expect(onboardOverTrpc(app.url, await app.token(), `@${handle}`)).rejects.toMatchObject({
      data: { errorCode: 'HANDLE_TAKEN' },
    });
  });

  it('shows the events client example byte for byte, and it runs', async () => {
    const [snippet] = codeBlocks(guideSection('## Points from other services'), 'ts');
    const file = await readFile(new URL('../../clients/events-client.example.ts', import.meta.url));
    expect(snippet).toBe(file.toString('utf8'));
    const fan = uniqueSubject('fan');
    const checkins = [
      { checkinId: `${fan}-1`, fanSubject: fan, at: new Date() },
      { checkinId: `${fan}-2`, fanSubject: fan, at: new Date(Date.now() - 9 * 86_400_000) },
    ];
    const service = await app.serviceToken('checkin-service');
    expect(await recordCheckins(app.url, service, checkins)).toEqual([
      `checkin-${fan}-1: recorded`,
      `checkin-${fan}-2: OCCURRED_AT_OUT_OF_RANGE`,
    ]);
    expect(await recordCheckins(app.url, service, checkins.slice(0, 1))).toEqual([
      `checkin-${fan}-1: duplicate`,
    ]);
  });

  it('shows the generated-client example byte for byte, and it runs', async () => {
    const [snippet] = codeBlocks(guideSection('### A generated REST client'), 'ts');
    const file = await readFile(new URL('../../clients/rest-client.example.ts', import.meta.url));
    expect(snippet).toBe(file.toString('utf8'));
    expect(await onboardOverRest(app.url, await app.token())).toEqual({ status: 201, points: 125 });
  });
});

describe('docs/GUIDE.md curl commands', () => {
  let devApp: TestApp;

  beforeAll(async () => {
    // The guide gets its token from `npm run token`, i.e. the development
    // identity provider: run a service that trusts it, on the same DATA_DIR.
    devApp = await startTestApp({ database, env: { AUTH_ISSUER: '', AUTH_JWKS_URL: '' } });
  });

  afterAll(async () => {
    await devApp?.close();
  });

  it('run as written and answer what docs/GUIDE.md shows', async () => {
    const section = guideSection('### REST with curl');
    const script = codeBlocks(section, 'sh').join('\n');
    const calls = [...script.matchAll(/curl -s -X (\w+) http:\/\/localhost:3000(\S+)/g)].map(
      (match) => ({ method: match[1] as string, path: match[2] as string }),
    );
    expect(calls).toEqual([
      { method: 'PATCH', path: '/api/user' },
      { method: 'POST', path: '/api/user/profile' },
    ]);

    // The commands as written; only the host changes, and curl also prints the status.
    const { stdout } = await promisify(execFile)(
      'bash',
      [
        '-euo',
        'pipefail',
        '-c',
        `curl() { command curl -w '\\n%{http_code}\\n' "$@"; }\n` +
          script.replaceAll('http://localhost:3000', devApp.url),
      ],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NODE_ENV: 'development',
          DATA_DIR: database.dataDir,
        },
      },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(4);

    const shown = codeBlocks(section, 'json').map((block) => JSON.parse(block) as unknown);
    expect(shown).toHaveLength(2);
    for (const [index, call] of calls.entries()) {
      const text = lines[index * 2] as string;
      const status = Number(lines[index * 2 + 1]);
      expect(status).toBe(index === 0 ? 200 : 201);
      assertResponseConforms({
        ...call,
        url: call.path,
        status,
        headers: new Headers({ 'content-type': 'application/json' }),
        text,
      });
      expect(sameShape(JSON.parse(text), shown[index])).toBe(true);
    }
    const onboarded = JSON.parse(lines[2] as string) as { data: { user: { points: number } } };
    expect(onboarded.data.user.points).toBe((shown[1] as typeof onboarded).data.user.points);

    // Then the events section's command, for the same alice, as written.
    const events = guideSection('## Points from other services');
    const eventScript = codeBlocks(events, 'sh').join('\n');
    const { stdout: eventOut } = await promisify(execFile)(
      'bash',
      [
        '-euo',
        'pipefail',
        '-c',
        `curl() { command curl -w '\\n%{http_code}\\n' "$@"; }\n` +
          eventScript.replaceAll('http://localhost:3000', devApp.url),
      ],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NODE_ENV: 'development',
          DATA_DIR: database.dataDir,
        },
      },
    );
    const [eventText, eventStatus] = eventOut.trim().split('\n');
    expect(Number(eventStatus)).toBe(200);
    const [eventShown] = codeBlocks(events, 'json').map((block) => JSON.parse(block) as unknown);
    const answered = JSON.parse(eventText as string);
    expect(sameShape(answered, eventShown)).toBe(true);
    expect(answered.data.results.map((r: { status: string }) => r.status)).toEqual([
      'recorded',
      'recorded',
      'rejected',
    ]);
    expect(answered.data.results[0].balance).toBe(
      (eventShown as typeof answered).data.results[0].balance,
    );
  });
});

/** Same keys all the way down; the guide's values stand for any value of the same kind. */
function sameShape(actual: unknown, shown: unknown): boolean {
  if (shown === '…') return true;
  if (Array.isArray(shown)) {
    return (
      Array.isArray(actual) &&
      actual.length === shown.length &&
      shown.every((item, i) => sameShape(actual[i], item))
    );
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(shown);
    return (
      JSON.stringify(Object.keys(actual)) === JSON.stringify(keys) &&
      keys.every((key) =>
        sameShape(
          (actual as Record<string, unknown>)[key],
          (shown as Record<string, unknown>)[key],
        ),
      )
    );
  }
  return typeof actual === typeof shown || actual === null || shown === null;
}
