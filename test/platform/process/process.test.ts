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
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      const code = await server.stop('SIGTERM');
      expect(code).toBe(0);
    }
    expect(server.stdout.some((line) => line.includes('"stopped"'))).toBe(true);
  });

  // Two service starts on PGlite: ~15 s on an idle 2-core machine, far more under load.
  // PGlite keeps the data in DATA_DIR, PostgreSQL in the server; both keep the
  // development signing key in DATA_DIR, so the token outlives the restart.
  it('keeps its data across a restart', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, NODE_ENV: 'development' };
    const token = (await runToEnd('scripts/token.ts', ['persistent'], env)).stdout.trim();
    const call = (url: string, body: unknown) =>
      fetch(`${url}/api/user`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(
        (r) => r.json() as Promise<{ data: { location: string | null; name: string | null } }>,
      );
    const first = await startServerProcess(env);
    await call(first.url, { name: 'Persistent' });
    expect(await first.stop()).toBe(0);
    const second = await startServerProcess(env);
    const after = await call(second.url, { location: 'Still here' });
    expect(after.data.name).toBe('Persistent');
    expect(await second.stop()).toBe(0);
  });
});
