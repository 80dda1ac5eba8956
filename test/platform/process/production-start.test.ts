import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrations } from '../../../db/migrations/index.js';
import { runToEnd, startServerProcess } from '../../helpers/server-process.js';

/**
 * The start-up guards of a production deployment, on the real server process
 * (src/server.ts): the embedded database only when asked for, one warning for
 * variables that look like ours but are not, and MIGRATE_ON_START=false with
 * `npm run migrate` as its own step. (scripts/production-check.sh runs the
 * compiled build with production dependencies only.)
 */
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ups-production-start-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const production = {
  NODE_ENV: 'production',
  AUTH_ISSUER: 'urn:production-start-test',
  AUTH_HS256_SECRET: 'p'.repeat(32),
  AUTH_AUDIENCE: 'user-profile-service',
};

interface LogLine {
  level?: string;
  msg?: string;
  variables?: unknown;
  migrations?: string[];
}
const parse = (lines: string[]): LogLine[] =>
  lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });

describe('a production start', { timeout: 120_000 }, () => {
  it('refuses the embedded database without ALLOW_EMBEDDED_DATABASE=true (a misspelt DATABASE_URL too)', async () => {
    const result = await runToEnd('src/server.ts', [], {
      ...production,
      DATABSE_URL: 'postgres://db.internal/profiles',
      DATA_DIR: path.join(root, 'refused'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_URL is not set and NODE_ENV=production');
    expect(result.stderr).toContain('ALLOW_EMBEDDED_DATABASE=true');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs on the embedded database when allowed, and warns once about look-alike variables', async () => {
    // The run's migrated PGlite template, so the start skips creating and
    // migrating a database (the last test starts on a new one).
    const dataDir = path.join(root, 'allowed');
    await cp(inject('pgliteTemplateDir'), dataDir, { recursive: true });
    const server = await startServerProcess({
      ...production,
      ALLOW_EMBEDDED_DATABASE: 'true',
      DATABSE_URL: 'postgres://db.internal/profiles',
      WEBHOOK_SECRETS: 'whsec_x',
      DATA_DIR: dataDir,
    });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const warnings = parse(server.stdout).filter((line) =>
      line.msg?.startsWith('unknown environment variables'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe('warn');
    expect(warnings[0]!.msg).toContain('DATABSE_URL (did you mean DATABASE_URL?)');
    expect(warnings[0]!.msg).toContain('WEBHOOK_SECRETS (did you mean WEBHOOK_SECRET?)');
    expect(warnings[0]!.variables).toEqual([
      { name: 'DATABSE_URL', didYouMean: 'DATABASE_URL' },
      { name: 'WEBHOOK_SECRETS', didYouMean: 'WEBHOOK_SECRET' },
    ]);
  });

  it('with MIGRATE_ON_START=false refuses a database with pending migrations, and starts once `migrate` ran', async () => {
    const env = {
      NODE_ENV: 'development',
      MIGRATE_ON_START: 'false',
      DATA_DIR: path.join(root, 'm'),
    };
    const refused = await runToEnd('src/server.ts', [], { ...env, PORT: '0', HOST: '127.0.0.1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${Object.keys(migrations).length} migration(s) not applied`);
    expect(refused.stderr).toContain('MIGRATE_ON_START=false: run `npm run migrate` first');

    const migrate = await runToEnd('scripts/migrate.ts', [], env);
    expect(migrate.code).toBe(0);
    const applied = migrate.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as object);
    expect(applied).toEqual(
      Object.keys(migrations).map((migration) => ({ migration, status: 'applied' })),
    );

    const server = await startServerProcess(env);
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const lines = parse(server.stdout);
    expect(lines.some((line) => line.msg === 'migrations applied')).toBe(false);
    expect(lines.some((line) => line.msg?.startsWith('unknown environment variables'))).toBe(false);
  });
});
