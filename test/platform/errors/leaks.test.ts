import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import { hs256With, startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * In production, internal failures must reach clients as a bare envelope: no
 * stack, no SQL, no database detail, no secret. The database here is this
 * file's own, so breaking it (dropping a table, a failing trigger) harms no
 * other test.
 */

const SECRET = 'leak-test-hs256-secret-0123456789-abcdef';
const AUDIENCE = 'user-profile-service';
const TRIGGER_DETAIL = 'trigger-detail-7f3a select * from users where password';

let database: TestDatabase;
let issuer: TokenIssuer;
let app: TestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
  app = await startTestApp({
    database,
    issuer,
    env: {
      NODE_ENV: 'production',
      // The app gets its test database directly, whatever DATABASE_URL says.
      ALLOW_EMBEDDED_DATABASE: 'true',
      AUTH_JWKS_URL: '',
      AUTH_HS256_SECRET: SECRET,
      AUTH_AUDIENCE: AUDIENCE,
    },
  });
});

afterAll(async () => {
  await app?.close();
  await issuer?.stop();
  await database?.destroy();
});

const token = (subject = uniqueSubject('leak')) =>
  hs256With(Buffer.from(SECRET), {
    sub: subject,
    aud: AUDIENCE,
    iss: issuer.issuer,
    exp: Math.floor(Date.now() / 1000) + 300,
  });

/** Nothing in a response body may look like an internal detail. */
function expectNoLeak(text: string, bearer: string) {
  const lower = text.toLowerCase();
  for (const needle of [
    'user_quests',
    'relation',
    'select ',
    'insert ',
    'update ',
    'trigger-detail',
    'password',
    'hunter2',
    'sqlstate',
    '42p01',
    'p0001',
    'node_modules',
    '.ts:',
    '\n    at ',
    'stack',
    SECRET.toLowerCase(),
    bearer.toLowerCase(),
    String(database.databaseUrl ?? database.dataDir).toLowerCase(),
  ]) {
    expect(lower, `response body contains ${JSON.stringify(needle)}`).not.toContain(needle);
  }
}

const INTERNAL = {
  success: false,
  error: { code: 'INTERNAL', message: 'Internal server error' },
};

describe('production: internal errors leak nothing', () => {
  it('a failing query (trigger raising an error with details) → bare 500 on both faces', async () => {
    const bearer = await token();
    const first = await app.request('PATCH', '/api/user', { token: bearer, body: { name: 'A' } });
    expect(first.status).toBe(200);

    await sql
      .raw(
        `create function leak_boom() returns trigger language plpgsql as $$ begin ` +
          `raise exception '${TRIGGER_DETAIL}' using detail = 'db-detail-password-hunter2'; end $$`,
      )
      .execute(database.db);
    await sql
      .raw(
        'create trigger leak_boom before update on profiles for each row execute function leak_boom()',
      )
      .execute(database.db);
    try {
      const rest = await app.request('PATCH', '/api/user', { token: bearer, body: { name: 'B' } });
      expect(rest.status).toBe(500);
      expect(rest.body).toEqual(INTERNAL);
      expectNoLeak(rest.text, bearer);

      const response = await fetch(`${app.url}/trpc/updateUser`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'C' }),
      });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toMatchObject({
        error: {
          message: 'Internal server error',
          data: { code: 'INTERNAL_SERVER_ERROR', errorCode: 'INTERNAL', httpStatus: 500 },
        },
      });
      expectNoLeak(text, bearer);
    } finally {
      await sql.raw('drop trigger leak_boom on profiles').execute(database.db);
      await sql.raw('drop function leak_boom()').execute(database.db);
    }
    // The failed writes left nothing behind.
    const profile = await database.db
      .selectFrom('profiles')
      .select('name')
      .where('userId', '=', first.body.data.id)
      .executeTakeFirstOrThrow();
    expect(profile.name).toBe('A');
  });

  it('a dropped table → bare 500, the transaction rolled back, and the token never logged', async () => {
    const bearer = await token();
    await app.request('PATCH', '/api/user', { token: bearer, body: { name: 'Before' } });
    await sql.raw('drop table user_quests').execute(database.db);

    const rest = await app.request('POST', '/api/user/profile', {
      token: bearer,
      body: { favoriteTeam: 'Team' },
    });
    expect(rest.status).toBe(500);
    expect(rest.body).toEqual(INTERNAL);
    expectNoLeak(rest.text, bearer);

    const trpc = await app
      .trpc(bearer)
      .onboardProfile.mutate({})
      .catch((error: unknown) => error as { message: string; data: Record<string, unknown> });
    expect(trpc).toMatchObject({ message: 'Internal server error' });
    expect((trpc as { data: Record<string, unknown> }).data.stack).toBeUndefined();
    expectNoLeak(JSON.stringify(trpc), bearer);

    // Onboarding is one transaction: the user is not onboarded, nothing was awarded.
    const user = await database.db
      .selectFrom('users')
      .innerJoin('profiles', 'profiles.userId', 'users.id')
      .select(['users.id', 'users.onboardedAt', 'profiles.favoriteTeam'])
      .where('profiles.name', '=', 'Before')
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ onboardedAt: null, favoriteTeam: null });
    const ledger = await database.db
      .selectFrom('pointsLedger')
      .select('id')
      .where('userId', '=', user.id)
      .execute();
    expect(ledger).toEqual([]);

    // The failure is logged for operators (with its cause), but no credential is.
    const logs = app.logs.join('\n');
    expect(app.logs.some((line) => JSON.parse(line).msg === 'internal error')).toBe(true);
    expect(logs).toContain('user_quests');
    expect(logs).not.toContain(bearer.slice(0, 30));
    expect(logs).not.toContain(SECRET);
    expect(logs.toLowerCase()).not.toContain('bearer');
    expect(logs.toLowerCase()).not.toContain('authorization');
  });
});
