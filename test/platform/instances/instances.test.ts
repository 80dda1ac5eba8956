import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consistencyProblems } from '../../helpers/consistency.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * Two service processes on one PostgreSQL database: correctness (one award,
 * one owner per handle) must come from the database, not process memory.
 */
const skip = testDbKind !== 'postgres';

describe.skipIf(skip)(
  `several instances on one database${skip ? ' (skipped: PGlite is one process at a time; run with TEST_DATABASE_URL)' : ''}`,
  () => {
    let database: TestDatabase;
    let issuer: TokenIssuer;
    let dataDir: string;
    const instances: ServerProcess[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
      issuer = await startTokenIssuer({ audience: 'user-profile-service' });
      dataDir = await mkdtemp(path.join(tmpdir(), 'ups-instances-'));
      const env = {
        DATABASE_URL: database.databaseUrl,
        AUTH_ISSUER: issuer.issuer,
        AUTH_JWKS_URL: issuer.jwksUrl,
        RATE_LIMIT_PER_USER: '0',
        RATE_LIMIT_PER_IP: '0',
        DATABASE_POOL_MAX: '8',
        NODE_ENV: 'production',
        AUTH_AUDIENCE: 'user-profile-service',
        DATA_DIR: dataDir,
      };
      instances.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
    });

    afterAll(async () => {
      for (const instance of instances) expect(await instance.stop()).toBe(0);
      await issuer?.stop();
      await database?.destroy();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    const call = async (
      instance: ServerProcess,
      method: string,
      url: string,
      token: string,
      body: unknown,
    ) => {
      const response = await fetch(`${instance.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };

    it(
      'onboarding raced across both instances awards each quest exactly once',
      { timeout: 120_000 },
      async () => {
        const users = await Promise.all(
          Array.from({ length: 8 }, (_, u) => issuer.sign(`race-onboard-${u}-${Date.now()}`)),
        );
        const stamp = Date.now().toString(36);
        const results = await Promise.all(
          users.flatMap((token, u) =>
            Array.from({ length: 4 }, (_, k) =>
              call(instances[k % 2]!, 'POST', '/api/user/profile', token, {
                handle: `racer_${u}_${stamp}`.slice(0, 30),
                favoriteTeam: 'Team',
              }).then((result) => ({ u, ...result })),
            ),
          ),
        );
        expect(results.filter((r) => r.status >= 300)).toEqual([]);
        for (let u = 0; u < users.length; u += 1) {
          const mine = results.filter((r) => r.u === u);
          // One call onboarded the user (201); the others saw it done (200).
          expect(mine.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
          // 100 welcome + 25 handle + 25 team, whoever answered last.
          for (const r of mine) expect(r.body.data.user.points).toBe(150);
        }
        const welcome = await database.db
          .selectFrom('pointsLedger')
          .select(({ fn }) => ['userId', fn.countAll<string>().as('awards')])
          .where('questId', '=', 'welcome')
          .groupBy('userId')
          .execute();
        expect(welcome).toHaveLength(users.length);
        expect(welcome.every((row) => Number(row.awards) === 1)).toBe(true);
        expect(await consistencyProblems(database.db)).toEqual([]);
      },
    );

    it(
      'a handle raced across both instances has exactly one owner; the others get 409 HANDLE_TAKEN',
      { timeout: 120_000 },
      async () => {
        const handles = Array.from({ length: 5 }, (_, h) => `dup${h}_${Date.now().toString(36)}`);
        const claims = await Promise.all(
          handles.flatMap((handle, h) =>
            Array.from({ length: 6 }, async (_, k) => {
              const token = await issuer.sign(`race-handle-${h}-${k}-${Date.now()}`);
              // Mixed case: uniqueness ignores case.
              const typed = k % 2 === 0 ? handle : handle.toUpperCase();
              const op = k % 3 === 0 ? 'POST' : 'PATCH';
              const url = op === 'POST' ? '/api/user/profile' : '/api/user';
              return {
                handle,
                ...(await call(instances[k % 2]!, op, url, token, { handle: typed })),
              };
            }),
          ),
        );
        for (const handle of handles) {
          const mine = claims.filter((c) => c.handle === handle);
          const winners = mine.filter((c) => c.status < 300);
          const losers = mine.filter((c) => c.status >= 300);
          expect(winners).toHaveLength(1);
          expect(losers).toHaveLength(5);
          for (const loser of losers) {
            expect(loser.status).toBe(409);
            expect(loser.body).toMatchObject({ success: false, error: { code: 'HANDLE_TAKEN' } });
          }
          const owners = await database.db
            .selectFrom('profiles')
            .select('userId')
            .where((eb) => eb(eb.fn('lower', ['handle']), '=', handle.toLowerCase()))
            .execute();
          expect(owners).toHaveLength(1);
        }
        expect(await consistencyProblems(database.db)).toEqual([]);
      },
    );

    it(
      'a reserved handle raced across both instances goes to its owner only; an expired one to exactly one user',
      { timeout: 120_000 },
      async () => {
        const stamp = Date.now().toString(36);
        const [kept, lapsed] = [`kept_${stamp}`, `lapsed_${stamp}`];
        const owner = await issuer.sign(`reserve-owner-${stamp}`);
        const giver = await issuer.sign(`reserve-giver-${stamp}`);
        for (const [token, handle] of [
          [owner, kept],
          [giver, lapsed],
        ] as const) {
          expect((await call(instances[0]!, 'PATCH', '/api/user', token, { handle })).status).toBe(
            200,
          );
          const moved = await call(instances[1]!, 'PATCH', '/api/user', token, {
            handle: `${handle}_new`,
          });
          expect(moved.status).toBe(200);
        }
        // The owner's cooldown and the other reservation have passed.
        await sql`update handle_history set changed_at = changed_at - interval '30 days'`.execute(
          database.db,
        );
        await sql`update handle_claims set reserved_until = now() - interval '1 second'
                  where handle_key = ${lapsed}`.execute(database.db);

        const others = await Promise.all(
          Array.from({ length: 8 }, (_, k) => issuer.sign(`reserve-other-${k}-${stamp}`)),
        );
        const results = await Promise.all([
          ...others.flatMap((token, k) => [
            call(instances[k % 2]!, 'PATCH', '/api/user', token, { handle: kept }),
            call(instances[(k + 1) % 2]!, 'POST', '/api/user/profile', token, { handle: lapsed }),
          ]),
          call(instances[1]!, 'PATCH', '/api/user', owner, { handle: kept }),
        ]);
        const ownerResult = results.at(-1)!;
        expect(ownerResult.status).toBe(200);
        const forKept = results.filter((_, i) => i < others.length * 2 && i % 2 === 0);
        expect(forKept.map((r) => r.body.error?.code)).toEqual(others.map(() => 'HANDLE_TAKEN'));
        const forLapsed = results.filter((_, i) => i < others.length * 2 && i % 2 === 1);
        expect(forLapsed.filter((r) => r.status < 300)).toHaveLength(1);
        expect(forLapsed.filter((r) => r.status === 409)).toHaveLength(others.length - 1);
        expect(await consistencyProblems(database.db)).toEqual([]);
      },
    );

    it(
      'an account deleted on one instance starts afresh on the other, whose cache still held its id',
      { timeout: 120_000 },
      async () => {
        const token = await issuer.sign(`delete-across-${Date.now()}`);
        const [a, b] = instances as [ServerProcess, ServerProcess];
        const onboarded = await call(a, 'POST', '/api/user/profile', token, { name: 'Twice' });
        const oldId: string = onboarded.body.data.user.id;
        // Both instances now cache (issuer, subject) → oldId.
        expect((await call(b, 'PATCH', '/api/user', token, { location: 'B' })).status).toBe(200);
        const deleted = await call(a, 'DELETE', '/api/user', token, undefined);
        expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: true } } });
        const onB = await call(b, 'GET', '/api/user', token, undefined);
        expect(onB.status).toBe(200);
        expect(onB.body.data.id).not.toBe(oldId);
        expect(onB.body.data).toMatchObject({ location: null, points: 0 });
        const onA = await call(a, 'GET', '/api/user', token, undefined);
        expect(onA.body.data.id).toBe(onB.body.data.id);
        expect(await consistencyProblems(database.db)).toEqual([]);
      },
    );
  },
);
