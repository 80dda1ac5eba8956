import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectExactlyOnce,
  outcome,
  type EventResult,
  type SentEvent,
} from '../../helpers/batches.js';
import { consistencyProblems } from '../../helpers/consistency.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * kill -9 of an instance in the middle of a batch (docs/ACTIVITY.md,
 * "Exactly once"): nothing it acknowledged is lost, and the sender's retry
 * with the same ids on another instance answers `duplicate` with the
 * original results. The batch is held in the middle without timing: another
 * session holds the rows of some of its fans, and the instance is killed
 * once PostgreSQL reports its write waiting on them. Needs a real
 * PostgreSQL (the instance is a process of its own on the test's database).
 */
const skip = testDbKind !== 'postgres';
const FANS = 100;

describe.skipIf(skip)(
  `kill -9 in the middle of a batch${skip ? ' (skipped: needs TEST_DATABASE_URL, the instance is its own process on the database)' : ''}`,
  () => {
    let database: TestDatabase;
    let issuer: TokenIssuer;
    let dataDir: string;
    const services: ServerProcess[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
      issuer = await startTokenIssuer();
      dataDir = await mkdtemp(path.join(tmpdir(), 'ups-batch-crash-'));
    });

    afterAll(async () => {
      for (const service of services) {
        const { exitCode, signalCode } = service.child;
        if (exitCode === null && signalCode === null) await service.stop('SIGKILL');
      }
      await issuer?.stop();
      await database?.destroy();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    const start = async () => {
      const service = await startServerProcess({
        DATABASE_URL: database.databaseUrl,
        AUTH_ISSUER: issuer.issuer,
        AUTH_JWKS_URL: issuer.jwksUrl,
        RATE_LIMIT_PER_USER: '0',
        RATE_LIMIT_PER_IP: '0',
        DATABASE_STATEMENT_TIMEOUT_MS: '120000',
        DATA_DIR: dataDir,
      });
      services.push(service);
      return service;
    };

    async function post(service: ServerProcess, token: string, events: SentEvent[]) {
      const response = await fetch(`${service.url}/api/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`events: ${response.status} ${text}`);
      const results = JSON.parse(text).data.results as EventResult[];
      expect(results.map((r) => r.id)).toEqual(events.map((e) => e.id));
      return results;
    }

    it(
      'loses nothing acknowledged; the retry with the same ids answers duplicate with the original results',
      { timeout: 180_000 },
      async () => {
        const run = Date.now().toString(36);
        const clientId = `crash-sender-${run}`;
        const token = await issuer.signService(clientId, 'events:write');
        const subjects = Array.from({ length: FANS }, (_, i) => `crash-${run}-${i}`);
        const at = new Date(Date.now() - 60_000).toISOString();
        const batch = (name: string): SentEvent[] =>
          subjects.map((subject, i) => ({
            id: `${run}-${name}-${i}`,
            subject,
            type: i % 2 ? 'prediction_correct' : 'match_checkin',
            occurredAt: at,
          }));
        const acknowledgedBatch = batch('a');
        const killedBatch = batch('b');

        const first = await start();
        const acknowledged = await post(first, token, acknowledgedBatch);
        expect(acknowledged.filter((r) => r.status !== 'recorded')).toEqual([]);

        // The second batch's fans 50–59 are held by another session: the
        // batch is in the middle of its work when the instance dies.
        const held = await sql<{ id: string }>`SELECT id FROM users
          WHERE subject = ANY(${subjects.slice(50, 60)}::text[])`.execute(database.db);
        expect(held.rows).toHaveLength(10);
        const blocker = new pg.Client({ connectionString: database.databaseUrl });
        await blocker.connect();
        let inFlight: Promise<unknown> | undefined;
        try {
          const pid = (await blocker.query<{ pid: number }>('select pg_backend_pid() as pid'))
            .rows[0]!.pid;
          await blocker.query('begin');
          await blocker.query('select id from users where id = any($1::uuid[]) for update', [
            held.rows.map((row) => row.id),
          ]);
          inFlight = post(first, token, killedBatch).then(
            () => 'answered',
            () => 'no answer',
          );
          for (let polls = 0; ; polls += 1) {
            const { rows } = await sql<{ waiting: string }>`
              select count(*)::text as waiting from pg_stat_activity
              where ${pid}::int = any(pg_blocking_pids(pid))`.execute(database.db);
            if (Number(rows[0]?.waiting) > 0) break;
            if (polls > 3000)
              throw new Error('gave up waiting for the batch to wait on the held rows');
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          expect(await first.stop('SIGKILL')).toBeNull();
          expect(await inFlight).toBe('no answer');
        } finally {
          await blocker.query('rollback').catch(() => undefined);
          await blocker.end();
        }

        // The sender retries both batches on another instance.
        const second = await start();
        const retried = await post(second, token, acknowledgedBatch);
        for (const [i, result] of retried.entries()) {
          expect(result.status, result.id).toBe('duplicate');
          expect(outcome(result), result.id).toEqual(outcome(acknowledged[i]!));
        }
        // The killed batch: whatever of it had committed is a duplicate, the rest is recorded now.
        const resent = await post(second, token, killedBatch);
        expect(resent.filter((r) => r.status === 'rejected')).toEqual([]);
        const again = await post(second, token, killedBatch);
        for (const [i, result] of again.entries()) {
          expect(result.status, result.id).toBe('duplicate');
          expect(outcome(result), result.id).toEqual(outcome(resent[i]!));
        }

        const ids = [...acknowledgedBatch, ...killedBatch].map((e) => e.id);
        await expectExactlyOnce(database.db, clientId, ids, new Set(ids));
        expect(await consistencyProblems(database.db)).toEqual([]);
      },
    );
  },
);
