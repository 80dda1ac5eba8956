import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { adminQuery, testDbKind } from './helpers/test-db.js';

/**
 * Runs once per `vitest run`, in the main process. On PGlite it builds one
 * migrated data dir that every test database copies (test/helpers/test-db.ts),
 * because creating a PGlite costs seconds and ~800 MB while copying and
 * reopening one is fast. On PostgreSQL it checks the server is reachable and,
 * at the end, drops any test database a crashed worker left behind.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = `t_${randomBytes(4).toString('hex')}`;
  project.provide('testRunId', runId);

  const serverUrl = process.env.TEST_DATABASE_URL?.trim();
  if (testDbKind === 'postgres' && serverUrl) {
    try {
      await adminQuery(serverUrl, 'select 1');
    } catch (error) {
      throw new Error(
        `TEST_DATABASE_URL (${serverUrl}) is not reachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return async () => {
      const leftovers = await adminQuery(
        serverUrl,
        `select datname from pg_database where datname like '${runId}\\_%'`,
      );
      for (const row of leftovers.rows as Array<{ datname: string }>) {
        await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
      }
    };
  }

  const templateDir = await mkdtemp(path.join(tmpdir(), 'ups-pglite-template-'));
  const started = performance.now();
  const database = await createDatabase({
    databaseUrl: undefined,
    dataDir: templateDir,
    poolMax: 1,
    statementTimeoutMs: 10_000,
  });
  const created = performance.now();
  await migrateToLatest(database.db);
  const migrated = performance.now();
  await database.close();
  if (process.env.TEST_DB_TIMINGS) {
    process.stderr.write(
      `PGlite template: create ${Math.round(created - started)} ms, ` +
        `migrate ${Math.round(migrated - created)} ms, close ${Math.round(performance.now() - migrated)} ms\n`,
    );
  }
  project.provide('pgliteTemplateDir', templateDir);
  return async () => {
    await rm(templateDir, { recursive: true, force: true });
  };
}
