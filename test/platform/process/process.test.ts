import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { runToEnd, startServerProcess } from '../../helpers/server-process.js';

let dataDir: string;
let databaseUrl: string | undefined;
let serverDatabase: TestDatabase | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'ups-process-'));
  // On PostgreSQL the server gets its own database on the test server.
  if (testDbKind === 'postgres') {
    serverDatabase = await createTestDatabase();
    databaseUrl = serverDatabase.databaseUrl;
  }
});

afterAll(async () => {
  await serverDatabase?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

// Each test starts real processes (tsx, npm run token): generous limits so a
// loaded machine makes them slow, not red.
describe('the service process', { timeout: 120_000 }, () => {
  it('refuses to start in production without auth configuration, with a clear message', async () => {
    const result = await runToEnd('src/server.ts', [], {
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('NODE_ENV=production');
    expect(result.stderr).toContain('AUTH_ISSUER');
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it('refuses to start in production without AUTH_AUDIENCE, with a clear message', async () => {
    const result = await runToEnd('src/server.ts', [], {
      NODE_ENV: 'production',
      AUTH_ISSUER: 'https://idp.example',
      DATA_DIR: dataDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('AUTH_AUDIENCE is required when NODE_ENV=production');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses bad configuration with exit code 1', async () => {
    const result = await runToEnd('src/server.ts', [], { PORT: 'eighty', DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT/);
  });

  // The restart test starts the second process on what the first one left in
  // DATA_DIR: one service start fewer (each costs seconds of CPU) than a pair of its own.
  let newcomerToken: string | undefined;

  it('runs with the development identity provider: npm run token gives a token it accepts; SIGTERM exits 0', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, NODE_ENV: 'development' };
    const server = await startServerProcess(env);
    try {
      const token = await runToEnd('scripts/token.ts', ['newcomer'], env);
      expect(token.code).toBe(0);
      const jwt = token.stdout.trim();
      expect(jwt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

      const response = await fetch(`${server.url}/api/user`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Newcomer' }),
      });
      expect(response.status).toBe(200);
      newcomerToken = jwt;
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      const code = await server.stop('SIGTERM');
      expect(code).toBe(0);
    }
    expect(server.stdout.some((line) => line.includes('"stopped"'))).toBe(true);
  });

  // PGlite keeps the data in DATA_DIR, PostgreSQL in the server; both keep the
  // development signing key in DATA_DIR, so the token outlives the restart.
  it('keeps its data across a restart (the process above wrote it)', async () => {
    expect(newcomerToken, 'the test above stopped before its write').toBeDefined();
    const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, NODE_ENV: 'development' };
    const second = await startServerProcess(env);
    try {
      const response = await fetch(`${second.url}/api/user`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${newcomerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ location: 'Still here' }),
      });
      expect(response.status).toBe(200);
      const after = (await response.json()) as {
        data: { location: string | null; name: string | null };
      };
      expect(after.data).toMatchObject({ name: 'Newcomer', location: 'Still here' });
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
