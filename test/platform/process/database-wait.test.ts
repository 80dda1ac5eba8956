import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  privatePostgresUnavailable,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../helpers/private-postgres.js';
import { runScript, SERVER_PRELOAD, waitForExit } from '../../helpers/server-process.js';
import { testDbKind } from '../../helpers/test-db.js';

/**
 * Start-up waits for the database (docs/OPERATIONS.md, "Start-up and the
 * database"): the service started before its PostgreSQL retries with backoff,
 * logs each attempt with its reason (ECONNREFUSED while nothing listens,
 * 57P03 while the server refuses connections), and starts once it answers;
 * it gives up after DATABASE_STARTUP_TIMEOUT_MS, and at once on an error
 * waiting cannot cure. The server is a private one of this test
 * (test/helpers/private-postgres.ts), started late: first not at all, then in
 * recovery (refusing connections), then promoted.
 */
const skipReason =
  testDbKind !== 'postgres'
    ? 'runs with the PostgreSQL suite (TEST_DATABASE_URL)'
    : privatePostgresUnavailable();

it.runIf(testDbKind === 'postgres' && process.env.CI === 'true' && skipReason !== undefined)(
  'has the PostgreSQL server binaries under CI',
  () => {
    expect.fail(`CI=true but a private PostgreSQL cannot start: ${skipReason}`);
  },
);

interface LogLine {
  msg?: string;
  level?: string;
  attempt?: number;
  reason?: string;
  retryInMs?: number;
  port?: number;
}

/** The service as `npm start` runs it, its JSON log lines collected as they come. */
function service(env: Record<string, string>, dataDir: string) {
  const child: ChildProcess = runScript(
    'src/server.ts',
    [],
    { PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'development', DATA_DIR: dataDir, ...env },
    [SERVER_PRELOAD],
  );
  const lines: LogLine[] = [];
  let stderr = '';
  let buffered = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        // not a log line
      }
    }
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = waitForExit(child);
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    /** Resolves with the first line matching, once the process has written it. */
    async line(match: (line: LogLine) => boolean): Promise<LogLine> {
      for (;;) {
        const found = lines.find(match);
        if (found) return found;
        const more = new Promise<void>((resolve) => waiters.push(resolve));
        const ended = await Promise.race([more.then(() => false), exited.then(() => true)]);
        if (ended && !lines.some(match)) {
          throw new Error(`the service exited first: ${stderr}\n${JSON.stringify(lines)}`);
        }
      }
    },
  };
}

const retrying = (reason: string) => (line: LogLine) =>
  line.msg === 'database not reachable yet: retrying' && line.reason === reason;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'ups-db-wait-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('start-up without its database', () => {
  it('gives up after DATABASE_STARTUP_TIMEOUT_MS, each attempt logged, exit code 1', async () => {
    const port = await freePort();
    const started = Date.now();
    const run = service(
      {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
        DATABASE_STARTUP_TIMEOUT_MS: '1500',
      },
      dataDir,
    );
    expect(await run.exited).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(run.stderr()).toMatch(
      /Failed to start: the database did not answer within 1500 ms \(\d+ attempts; last: ECONNREFUSED\); raise DATABASE_STARTUP_TIMEOUT_MS/,
    );
    const attempts = run.lines.filter((line) => line.reason === 'ECONNREFUSED');
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts.map((line) => line.attempt)).toEqual(attempts.map((_, i) => i + 1));
    // Backoff: 250 ms, then doubling (the last wait is cut to the time left).
    expect(attempts.slice(0, 2).map((line) => line.retryInMs)).toEqual([250, 500]);
    expect(attempts.at(-1)).toMatchObject({ msg: 'database not reachable: giving up' });
    expect(attempts.at(-1)?.retryInMs).toBeUndefined();
    expect(run.lines.some((line) => line.msg === 'listening')).toBe(false);
  });
});

describe.skipIf(skipReason !== undefined)(
  `start-up before its PostgreSQL${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let server: PrivatePostgres;
    beforeAll(async () => {
      server = await startPrivatePostgres({ started: false });
    }, 120_000);
    afterAll(async () => {
      await server?.destroy();
    });

    it('waits while nothing listens and while the server refuses connections, then starts', async () => {
      const run = service({ DATABASE_URL: server.url }, dataDir);
      try {
        await run.line(retrying('ECONNREFUSED'));
        await run.line((line) => retrying('ECONNREFUSED')(line) && (line.attempt ?? 0) >= 2);

        // In recovery with hot_standby=off it refuses every connection: 57P03.
        await server.startInRecovery();
        await run.line(retrying('57P03'));
        expect(run.lines.some((line) => line.msg === 'listening')).toBe(false);

        await server.promote();
        const listening = await run.line((line) => line.msg === 'listening');
        const ready = await fetch(`http://127.0.0.1:${listening.port}/readyz`);
        expect(ready.status).toBe(200);
        // Migrated once it could: the service's tables are there.
        const attempts = run.lines.filter((line) => line.msg?.startsWith('database not reachable'));
        expect(attempts.map((line) => line.attempt)).toEqual(attempts.map((_, i) => i + 1));
        expect(attempts.every((line) => line.level === 'warn')).toBe(true);
      } finally {
        run.child.kill('SIGTERM');
        await run.exited;
      }
    }, 120_000);

    it('does not wait for what waiting cannot cure: a database that does not exist', async () => {
      const started = Date.now();
      const run = service(
        { DATABASE_URL: server.url.replace(/\/postgres$/, '/no_such_database') },
        dataDir,
      );
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toMatch(/Failed to start: .*no_such_database.* does not exist/);
      expect(run.lines.filter((line) => line.msg?.startsWith('database not reachable'))).toEqual(
        [],
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    }, 60_000);
  },
);
