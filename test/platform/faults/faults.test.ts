import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../../db/database.js';
import { isDatabaseUnavailable } from '../../../db/queries/errors.js';
import { loadConfig } from '../../../src/config.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import {
  privatePostgresUnavailable,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../helpers/private-postgres.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import {
  createTestDatabase,
  testDbKind,
  type TestDatabase,
  openPool,
} from '../../helpers/test-db.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * Database faults. These need a real PostgreSQL server (TEST_DATABASE_URL run);
 * PGlite runs in-process, has no connections to lose and no statement timeout.
 * The restart test starts a private server of its own (never the shared one).
 */
const skipReason =
  testDbKind !== 'postgres'
    ? 'needs TEST_DATABASE_URL (PGlite has no server to restart and no statement_timeout)'
    : privatePostgresUnavailable();
const inCi = process.env.CI === 'true';

// CI runs these: a missing PostgreSQL installation fails the run instead of skipping them.
it.runIf(testDbKind === 'postgres' && inCi && skipReason !== undefined)(
  'has the PostgreSQL server binaries under CI',
  () => {
    expect.fail(`CI=true but a private PostgreSQL cannot start: ${skipReason}`);
  },
);

let issuer: TokenIssuer;

beforeAll(async () => {
  issuer = await startTokenIssuer({ audience: 'user-profile-service' });
});

afterAll(async () => {
  await issuer?.stop();
});

interface Outcome {
  subject: string;
  op: 'PATCH' | 'POST';
  name: string;
  status: number;
  body: any;
  retryAfter: string | null;
}

describe.skipIf(skipReason !== undefined)(
  `PostgreSQL restarted under load${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: PrivatePostgres;
    let service: ServerProcess | undefined;
    let dataDir: string;

    beforeAll(async () => {
      server = await startPrivatePostgres();
      dataDir = await mkdtemp(path.join(tmpdir(), 'ups-faults-'));
    });

    afterAll(async () => {
      await service?.stop();
      await server?.destroy();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it(
      'answers 503 while it is down, recovers without a restart, and loses no acknowledged write',
      { timeout: 180_000 },
      async () => {
        service = await startServerProcess({
          DATABASE_URL: server.url,
          DATABASE_POOL_MAX: '4',
          AUTH_ISSUER: issuer.issuer,
          AUTH_JWKS_URL: issuer.jwksUrl,
          RATE_LIMIT_PER_USER: '0',
          RATE_LIMIT_PER_IP: '0',
          NODE_ENV: 'production',
          AUTH_AUDIENCE: 'user-profile-service',
          DATA_DIR: dataDir,
        });
        const url = service.url;

        // Phases advance on counts of answers, never on elapsed time.
        let phase: 'before' | 'down' | 'after' | 'done' = 'before';
        const counts = { before: 0, down: 0, after: 0 };
        const outcomes: Outcome[] = [];
        let wake: () => void = () => {};
        const until = (ready: () => boolean) =>
          new Promise<void>((resolve) => {
            const check = () => (ready() ? resolve() : (wake = check));
            check();
          });

        const worker = async (w: number) => {
          for (let i = 0; phase !== 'done'; i += 1) {
            const subject = `fault-${w}-${i}-${Date.now().toString(36)}`;
            const op = i % 2 === 0 ? 'PATCH' : 'POST';
            const name = `n${w}x${i}`;
            const asked = phase;
            const response = await fetch(
              `${url}${op === 'PATCH' ? '/api/user' : '/api/user/profile'}`,
              {
                method: op,
                headers: {
                  authorization: `Bearer ${await issuer.sign(subject)}`,
                  'content-type': 'application/json',
                },
                body: JSON.stringify({ name, favoriteTeam: `T${w}` }),
              },
            );
            const body = await response.json();
            outcomes.push({
              subject,
              op,
              name,
              status: response.status,
              body,
              retryAfter: response.headers.get('retry-after'),
            });
            const ok = response.status < 300;
            if (asked === 'before' && ok) counts.before += 1;
            if (asked === 'down' && !ok) counts.down += 1;
            if (asked === 'after' && phase === 'after' && ok) counts.after += 1;
            wake();
          }
        };
        const workers = Array.from({ length: 6 }, (_, w) => worker(w));

        await until(() => counts.before >= 12);
        await server.crash();
        phase = 'down';
        await until(() => counts.down >= 12);
        await server.start();
        phase = 'after';
        await until(() => counts.after >= 12);
        phase = 'done';
        await Promise.all(workers);

        if (process.env.FAULTS_DEBUG) {
          for (const line of service.stdout)
            if (line.includes('"error"')) process.stderr.write(`${line}\n`);
        }
        // Every answer was a success or the 503 envelope; never a 500, never a hang.
        const statuses = new Set(outcomes.map((o) => o.status));
        expect([...statuses].filter((s) => ![200, 201, 503].includes(s))).toEqual([]);
        const unavailable = outcomes.filter((o) => o.status === 503);
        expect(unavailable.length).toBeGreaterThanOrEqual(12);
        for (const o of unavailable) {
          expect(o.body).toEqual({
            success: false,
            error: { code: 'UNAVAILABLE', message: expect.any(String) },
          });
          expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
        }

        // The same process is still serving, and says it is ready.
        expect(service.child.exitCode).toBeNull();
        expect((await fetch(`${url}/readyz`)).status).toBe(200);

        // Every acknowledged write is in the database.
        const check: DatabaseHandle = await createDatabase({
          databaseUrl: server.url,
          dataDir,
          poolMax: 2,
          statementTimeoutMs: 10_000,
        });
        try {
          const acknowledged = outcomes.filter((o) => o.status < 300);
          expect(acknowledged.length).toBeGreaterThanOrEqual(24);
          const rows = await check.db
            .selectFrom('users')
            .innerJoin('profiles', 'profiles.userId', 'users.id')
            .select(['users.subject', 'users.onboardedAt', 'profiles.name'])
            .where('users.issuer', '=', issuer.issuer)
            .execute();
          const bySubject = new Map(rows.map((row) => [row.subject, row]));
          const lost = acknowledged.filter((o) => {
            const row = bySubject.get(o.subject);
            return !row || row.name !== o.name || (o.op === 'POST' && row.onboardedAt === null);
          });
          expect(lost).toEqual([]);
          expect(await consistencyProblems(check.db)).toEqual([]);
        } finally {
          await check.close();
        }
      },
    );

    it('pooled connections that die, idle or checked out, are reported and never crash the process', async () => {
      const lost: Error[] = [];
      let wake: () => void = () => {};
      const handle = await createDatabase({
        databaseUrl: server.url,
        dataDir,
        poolMax: 3,
        statementTimeoutMs: 10_000,
        onIdleClientError: (error) => {
          lost.push(error);
          wake();
        },
      });
      const lostAtLeast = (n: number) =>
        new Promise<void>((resolve) => {
          const check = () => (lost.length >= n ? resolve() : (wake = check));
          check();
        });
      try {
        // Two overlapping queries open two connections; both go back to the pool idle.
        await Promise.all([
          sql`select pg_sleep(0.05)`.execute(handle.db),
          sql`select pg_sleep(0.05)`.execute(handle.db),
        ]);
        await handle.db.connection().execute(async (held) => {
          await sql`select 1`.execute(held); // checked out, between queries
          await server.crash();
          // Without a listener on the checked-out client its 'error' event would be
          // unhandled and end this process (the vitest worker).
          await lostAtLeast(2);
          const failed = await sql`select 1`.execute(held).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(isDatabaseUnavailable(failed)).toBe(true);
        });
        expect(isDatabaseUnavailable(await handle.ping().catch((error: unknown) => error))).toBe(
          true,
        );
        await server.start();
        await handle.ping(); // the pool opens new connections by itself
      } finally {
        await handle.close();
      }
    });
  },
);

describe.skipIf(testDbKind !== 'postgres')(
  `statement timeout${testDbKind !== 'postgres' ? ' (skipped: PGlite has no statement_timeout)' : ''}`,
  () => {
    let database: TestDatabase;
    let short: DatabaseHandle;
    let app: TestApp;

    beforeAll(async () => {
      database = await createTestDatabase();
      short = await openPool(database, { statementTimeoutMs: 300 });
      app = await startTestApp({ database: { ...database, ...short }, issuer });
    });

    afterAll(async () => {
      await app?.close();
      await short?.close();
      await database?.destroy();
    });

    it('is on by default (DATABASE_STATEMENT_TIMEOUT_MS = 5000)', () => {
      expect(loadConfig({}).database.statementTimeoutMs).toBe(5000);
    });

    it('turns a query stuck behind another connection’s lock into a 503, not a hang', async () => {
      const token = await issuer.sign(`slow-${Date.now().toString(36)}`);
      const created = await app.request('PATCH', '/api/user', { token, body: { name: 'Slow' } });
      expect(created.status).toBe(200);

      const blocker = new pg.Client({ connectionString: database.databaseUrl });
      await blocker.connect();
      try {
        await blocker.query('begin');
        await blocker.query('select id from users where id = $1 for update', [
          created.body.data.id,
        ]);
        const stuck = await app.request('PATCH', '/api/user', { token, body: { name: 'Stuck' } });
        expect(stuck.status).toBe(503);
        expect(stuck.body).toEqual({
          success: false,
          error: { code: 'UNAVAILABLE', message: expect.any(String) },
        });
        expect(Number(stuck.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        await blocker.query('rollback');
      } finally {
        await blocker.end();
      }
      const after = await app.request('PATCH', '/api/user', { token, body: { name: 'Free' } });
      expect(after.status).toBe(200);
      expect(after.body.data.name).toBe('Free');
    });
  },
);
