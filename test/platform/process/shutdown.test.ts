import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startServerProcess,
  waitForExit,
  type ServerProcess,
} from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * SIGTERM with requests in flight. The requests are held in flight without
 * timing: another connection holds their rows' locks, and the test waits until
 * PostgreSQL reports every one of them waiting. Needs a real PostgreSQL.
 */
const skip = testDbKind !== 'postgres';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

function patch(agent: Agent, url: string, token: string, body: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/user`,
      {
        method: 'PATCH',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe.skipIf(skip)(
  `graceful shutdown${skip ? ' (skipped: needs TEST_DATABASE_URL to hold requests in flight with row locks)' : ''}`,
  () => {
    let database: TestDatabase;
    let issuer: TokenIssuer;
    let dataDir: string;
    let service: ServerProcess | undefined;

    beforeAll(async () => {
      database = await createTestDatabase();
      issuer = await startTokenIssuer();
      dataDir = await mkdtemp(path.join(tmpdir(), 'ups-shutdown-'));
    });

    afterAll(async () => {
      if (service && service.child.exitCode === null) await service.stop('SIGKILL');
      await issuer?.stop();
      await database?.destroy();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it(
      'SIGTERM: in-flight requests complete with Connection: close, new connections are refused, exit 0',
      { timeout: 120_000 },
      async () => {
        service = await startServerProcess({
          DATABASE_URL: database.databaseUrl,
          AUTH_ISSUER: issuer.issuer,
          AUTH_JWKS_URL: issuer.jwksUrl,
          RATE_LIMIT_PER_USER: '0',
          RATE_LIMIT_PER_IP: '0',
          DATABASE_POOL_MAX: '10',
          // Long enough that neither cuts the held requests short.
          DATABASE_STATEMENT_TIMEOUT_MS: '120000',
          SHUTDOWN_TIMEOUT_MS: '120000',
          DATA_DIR: dataDir,
        });
        const agent = new Agent({ keepAlive: true, maxSockets: 10 });
        const tokens = await Promise.all(
          Array.from({ length: 6 }, (_, i) => issuer.sign(`drain-${i}-${Date.now()}`)),
        );
        const created = await Promise.all(
          tokens.map((token, i) => patch(agent, service!.url, token, { name: `Before ${i}` })),
        );
        expect(created.map((r) => r.status)).toEqual(tokens.map(() => 200));
        const ids = created.map((r) => r.body.data.id as string);

        const blocker = new pg.Client({ connectionString: database.databaseUrl });
        await blocker.connect();
        try {
          const blockerPid = (
            await blocker.query<{ pid: number }>('select pg_backend_pid() as pid')
          ).rows[0]!.pid;
          await blocker.query('begin');
          await blocker.query('select id from users where id = any($1::uuid[]) for update', [ids]);
          const inFlight = tokens.map((token, i) =>
            patch(agent, service!.url, token, { name: `During ${i}` }),
          );
          // Wait (by polling, not by time) until PostgreSQL has every request
          // waiting on the blocker's locks. Polled on its own connection, each
          // poll in its own transaction: inside the blocker's transaction
          // pg_stat_activity keeps the list of sessions from the first poll,
          // so a pool connection opened after it would never be counted.
          for (;;) {
            const { rows } = await sql<{ waiting: string }>`
              select count(*)::text as waiting from pg_stat_activity
              where ${blockerPid}::int = any(pg_blocking_pids(pid))`.execute(database.db);
            if (Number(rows[0]?.waiting) >= tokens.length) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }

          const exited = waitForExit(service.child);
          service.child.kill('SIGTERM');
          while (!service.stdout.some((line) => line.includes('shutting down'))) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }

          // The listening socket is closed: a new connection is refused.
          const { port } = new URL(service.url);
          const refused = await new Promise<string>((resolve) => {
            const socket = connect(Number(port), '127.0.0.1');
            socket.on('connect', () => {
              socket.destroy();
              resolve('connected');
            });
            socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
          });
          expect(refused).toBe('ECONNREFUSED');

          // Let the held requests finish: each completes, and closes its keep-alive connection.
          await blocker.query('rollback');
          const replies = await Promise.all(inFlight);
          expect(replies.map((r) => r.status)).toEqual(tokens.map(() => 200));
          expect(replies.map((r) => r.headers.connection)).toEqual(tokens.map(() => 'close'));
          expect(replies.map((r) => r.body.data.name)).toEqual(tokens.map((_, i) => `During ${i}`));
          expect(await exited).toBe(0);
          expect(service.stdout.some((line) => line.includes('"stopped"'))).toBe(true);
        } finally {
          await blocker.end();
          agent.destroy();
        }

        const names = await database.db
          .selectFrom('profiles')
          .select('name')
          .where('userId', 'in', ids)
          .orderBy('name')
          .execute();
        expect(names.map((row) => row.name)).toEqual(tokens.map((_, i) => `During ${i}`));
      },
    );
  },
);
