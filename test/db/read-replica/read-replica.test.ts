import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { ensureUser, findUser } from '../../../db/queries/users.js';
import type { Database } from '../../../db/schema.js';
import { registry, trackReplica } from '../../../src/metrics.js';
import { adminQuery, createTestDatabase, openPool, testDbKind } from '../../helpers/test-db.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import type { TestDatabase } from '../../helpers/test-db.js';

/**
 * Reads on a real PostgreSQL streaming replica (db/read-router.ts). `.ci/run`
 * makes one with `.ci/replica` and sets TEST_DATABASE_READ_URL (the replica
 * server: any database name; each test's own database is used there) and
 * TEST_DATABASE_READ_CLUSTER (`15/replica`, for pg_ctlcluster stop/start).
 * TEST_DATABASE_URL must be the replica's primary. Without them the tests
 * skip, except under CI=true on PostgreSQL, where that fails the run.
 *
 * Which database served a read is seen from the data: the replica's replay
 * is paused (pg_wal_replay_pause), a write on the primary is then invisible
 * on the replica and visible on the primary.
 */
const readServer = process.env.TEST_DATABASE_READ_URL?.trim() || undefined;
const cluster = process.env.TEST_DATABASE_READ_CLUSTER?.trim() || undefined;
const inCi = process.env.CI === 'true';
const skipReason =
  testDbKind !== 'postgres'
    ? 'needs TEST_DATABASE_URL (a replica is of a PostgreSQL primary)'
    : readServer === undefined || cluster === undefined
      ? 'needs TEST_DATABASE_READ_URL and TEST_DATABASE_READ_CLUSTER (.ci/replica makes the replica)'
      : undefined;

it.runIf(testDbKind === 'postgres' && inCi && skipReason !== undefined)(
  'has a replica under CI',
  () => {
    expect.fail(`CI=true but the replica tests cannot run: ${skipReason}`);
  },
);

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The replica's URL for the same database as `primaryUrl`. */
function replicaUrlOf(primaryUrl: string): string {
  const url = new URL(readServer!);
  url.pathname = new URL(primaryUrl).pathname;
  return url.toString();
}

async function replicaCtl(action: 'start' | 'stop'): Promise<void> {
  const [version, name] = cluster!.split('/');
  await run('pg_ctlcluster', [
    version!,
    name!,
    action,
    ...(action === 'stop' ? ['-m', 'fast'] : []),
  ]);
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Whether the database a read ran on is the replica (a behavioural signal: only a standby is in recovery). */
async function onReplica(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ r: boolean }>`select pg_is_in_recovery() as r`.execute(db);
  return rows[0]!.r;
}

describe.skipIf(skipReason !== undefined)(
  `reads on a streaming replica${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let database: TestDatabase;
    let replicaUrl: string;

    const replay = (action: 'pause' | 'resume') =>
      adminQuery(replicaUrl, `select pg_wal_replay_${action}()`);

    beforeAll(async () => {
      database = await createTestDatabase();
      replicaUrl = replicaUrlOf(database.databaseUrl!);
      // The new database and its migrations reach the replica.
      await until('the test database on the replica', async () => {
        const { rows } = await adminQuery(
          replicaUrl,
          "select to_regclass('leaderboard_entries') is not null as ready",
        );
        return rows[0]?.ready === true ? true : undefined;
      });
    });

    afterAll(async () => {
      // Whatever a failed test left: the replica replaying and running.
      if (replicaUrl) await replicaCtl('start').catch(() => {});
      if (replicaUrl) await replay('resume').catch(() => {});
      await database?.destroy();
    });

    /** A pool on the test database whose reads use the replica, with these bounds. */
    async function replicated(
      bounds: { maxLagMs?: number; waitMs?: number; pollMs?: number } = {},
      changes: { serving: boolean; reason: string }[] = [],
    ): Promise<DatabaseHandle> {
      const handle = await openPool(database, {
        replica: {
          url: replicaUrl,
          maxLagMs: bounds.maxLagMs ?? 2_000,
          waitMs: bounds.waitMs ?? 200,
          pollMs: bounds.pollMs ?? 25,
          onChange: ({ serving, reason }) => changes.push({ serving, reason }),
        },
      });
      await until('the replica serving', async () => {
        await handle.reads.refresh();
        return handle.reads.replicaServing || undefined;
      });
      return handle;
    }

    it('sends reads that may lag to the replica, and to the primary once it lags beyond the bound', async () => {
      const handle = await replicated({ maxLagMs: 1_500 });
      try {
        const { reads } = handle;
        expect(await reads.shared(onReplica)).toBe(true);
        expect(reads.lagSeconds()).toBeLessThan(1.5);

        await replay('pause');
        const user = await ensureUser(handle.db, 'https://replica.test', randomUUID());
        const seen = () => reads.shared(async (db) => (await findUser(db, user.id)) !== undefined);
        // Within the bound: the replica, which has not replayed the new user.
        expect(await seen()).toBe(false);
        // Beyond it: the primary, with no error.
        await until('reads on the primary', async () => (await seen()) || undefined, 10_000);
        expect(reads.replicaServing).toBe(false);
        expect(reads.lagSeconds()).toBeGreaterThan(1.5);
        expect(await reads.shared(onReplica)).toBe(false);

        await replay('resume');
        await until('the replica serving again', async () => reads.replicaServing || undefined);
        expect(await reads.shared(onReplica)).toBe(true);
        // Serving again means at most maxLagMs behind, which may still be
        // before the new user when the primary's WAL moved on (other
        // databases writing) while replay was paused: the user shows within
        // the bound, not necessarily at once.
        await until('the new user on the replica', async () => (await seen()) || undefined, 10_000);
      } finally {
        await replay('resume');
        await handle.close();
      }
    });

    it("reads a fan's own data on the replica once it has replayed their write, else on the primary", async () => {
      const handle = await replicated({ waitMs: 1_000 });
      try {
        const { reads } = handle;
        // Replaying: each write is read back on the replica, after it has replayed it.
        for (let i = 0; i < 20; i += 1) {
          const user = await ensureUser(handle.db, 'https://replica.test', randomUUID());
          reads.wrote(user.id);
          const read = await reads.own(user.id, async (db) => ({
            replica: await onReplica(db),
            found: (await findUser(db, user.id)) !== undefined,
          }));
          expect(read).toEqual({ replica: true, found: true });
        }

        // Paused: the replica cannot reach the write within the wait, so the primary serves it.
        await replay('pause');
        const user = await ensureUser(handle.db, 'https://replica.test', randomUUID());
        reads.wrote(user.id);
        const started = performance.now();
        const read = await reads.own(user.id, async (db) => ({
          replica: await onReplica(db),
          found: (await findUser(db, user.id)) !== undefined,
        }));
        expect(read).toEqual({ replica: false, found: true });
        expect(performance.now() - started).toBeGreaterThanOrEqual(950);
        // Another fan, who wrote nothing here, still reads on the replica.
        expect(await reads.own(randomUUID(), onReplica)).toBe(true);

        // Resumed during the wait: the read waits for the replay and stays on the replica.
        const next = await ensureUser(handle.db, 'https://replica.test', randomUUID());
        reads.wrote(next.id);
        const waited = reads.own(next.id, async (db) => ({
          replica: await onReplica(db),
          found: (await findUser(db, next.id)) !== undefined,
        }));
        await sleep(50);
        await replay('resume');
        expect(await waited).toEqual({ replica: true, found: true });
      } finally {
        await replay('resume');
        await handle.close();
      }
    });

    describe('over HTTP', () => {
      const changes: { serving: boolean; reason: string }[] = [];
      let handle: DatabaseHandle;
      let app: TestApp;

      beforeAll(async () => {
        // No poll during these tests (refresh() measures): reads meet a stopped replica before
        // anything else notices, so their own fallback is what keeps them answering.
        handle = await replicated({ maxLagMs: 600_000, waitMs: 200, pollMs: 300_000 }, changes);
        app = await startTestApp({
          database: {
            ...handle,
            databaseUrl: database.databaseUrl,
            dataDir: database.dataDir,
            destroy: () => handle.close(),
          },
        });
      });

      afterAll(async () => {
        await app?.close();
        await handle?.close();
      });

      const onboard = async (token: string, handleName: string, points?: unknown) => {
        const response = await app.request('POST', '/api/user/profile', {
          token,
          body: { handle: handleName, name: handleName, favoriteTeam: 'Replica FC' },
        });
        expect(response.status, response.text).toBe(201);
        return points;
      };

      it("a fan reads their own write at once; others' boards may lag within the bound", async () => {
        const token = await app.token();
        const name = `r${randomUUID().slice(0, 8)}`;
        await onboard(token, name);
        // Read-your-writes with replay running, PATCH after PATCH.
        for (let i = 0; i < 10; i += 1) {
          const patched = await app.request('PATCH', '/api/user', {
            token,
            body: { location: `City ${i}` },
          });
          expect(patched.status).toBe(200);
          const me = await app.request('GET', '/api/user', { token });
          expect(me.body.data.location).toBe(`City ${i}`);
        }

        await replay('pause');
        try {
          const other = await app.token();
          const otherName = `o${randomUUID().slice(0, 8)}`;
          await onboard(other, otherName);
          // The new fan reads their own data (the primary, after the wait)...
          const me = await app.request('GET', '/api/user', { token: other });
          expect(me.status).toBe(200);
          expect(me.body.data.handle).toBe(otherName);
          const around = await app.request('GET', '/api/leaderboard/me', { token: other });
          expect(around.status).toBe(200);
          expect(around.body.data.entry.handle).toBe(otherName);
          // ...while the team's board, read on the replica, does not show them yet.
          const board = await app.request('GET', '/api/leaderboard?team=Replica%20FC&limit=100', {
            token,
          });
          expect(board.status).toBe(200);
          const handles = board.body.data.entries.map((e: { handle: string }) => e.handle);
          expect(handles).toContain(name);
          expect(handles).not.toContain(otherName);
        } finally {
          await replay('resume');
        }
      });

      it('keeps answering when the replica stops mid-run, and reads there again once it is back', async () => {
        const token = await app.token();
        const name = `s${randomUUID().slice(0, 8)}`;
        await onboard(token, name);
        await handle.reads.refresh();
        expect(handle.reads.replicaServing).toBe(true);
        changes.length = 0;
        const untrack = trackReplica(handle.reads);
        const scrape = async () => {
          const text = await registry.metrics();
          const value = (name: string) =>
            Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'absent');
          return { lag: value('ups_replica_lag_seconds'), serving: value('ups_replica_serving') };
        };
        const up = await scrape();
        expect(up.serving).toBe(1);
        expect(up.lag).toBeGreaterThanOrEqual(0);
        expect(up.lag).toBeLessThan(600);

        await replicaCtl('stop');
        try {
          // Every read answers, straight away and while the router notices.
          for (let i = 0; i < 20; i += 1) {
            const [board, me, history] = await Promise.all([
              app.request('GET', '/api/leaderboard?team=Replica%20FC', { token }),
              app.request('GET', '/api/user', { token }),
              app.request('GET', '/api/user/points', { token }),
            ]);
            expect([board.status, me.status, history.status], board.text).toEqual([200, 200, 200]);
            expect(me.body.data.handle).toBe(name);
            await sleep(25);
          }
          expect(handle.reads.replicaServing).toBe(false);
          expect(changes).toEqual([{ serving: false, reason: 'a read failed on the replica' }]);
          expect((await scrape()).serving).toBe(0);
          expect(await handle.reads.shared(onReplica)).toBe(false);
        } finally {
          await replicaCtl('start');
        }
        await until('the replica serving again', async () => {
          await handle.reads.refresh();
          return handle.reads.replicaServing || undefined;
        });
        expect(await handle.reads.shared(onReplica)).toBe(true);
        expect((await scrape()).serving).toBe(1);
        untrack();
        expect(await registry.metrics()).not.toMatch(/ups_replica_/);
        const board = await app.request('GET', '/api/leaderboard?team=Replica%20FC', { token });
        expect(board.status).toBe(200);
        expect(board.body.data.entries.map((e: { handle: string }) => e.handle)).toContain(name);
      });
    });
  },
);
