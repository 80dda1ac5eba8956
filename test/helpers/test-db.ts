import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type DatabaseHandle, type DatabaseOptions } from '../../db/database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated, closed PGlite DATA_DIR built once per run (and kept: decision 0121). */
    pgliteTemplateDir: string;
    /** A migrated database on the TEST_DATABASE_URL server that test databases copy (PostgreSQL runs only). */
    pgTemplateDatabase: string;
    /** Prefix of every PostgreSQL test database of this run, so teardown can sweep leftovers. */
    testRunId: string;
  }
}

export interface TestDatabase extends DatabaseHandle {
  /** Connection string of this test's own database (PostgreSQL), undefined on PGlite. */
  databaseUrl: string | undefined;
  /**
   * A temporary DATA_DIR of this test's own. On PGlite it holds the database
   * (`pgdata/`): a service process given DATA_DIR=dataDir opens the same data,
   * but only after this handle is closed (PGlite is one process at a time).
   */
  dataDir: string;
  /** Closes the handle and deletes the database and dataDir. Safe after close(). */
  destroy(): Promise<void>;
}

const testDatabaseUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** Which database the tests run on: TEST_DATABASE_URL set → PostgreSQL, else PGlite. */
export const testDbKind: 'postgres' | 'pglite' = testDatabaseUrl ? 'postgres' : 'pglite';

const HANDLE_OPTIONS = { poolMax: 5, statementTimeoutMs: 10_000 } as const;

/**
 * Another pool on a test database, as a second service process would open
 * (pool of 4, 10 s statement timeout unless `options` says otherwise). The
 * caller closes it.
 */
export function openPool(
  database: Pick<TestDatabase, 'databaseUrl' | 'dataDir'>,
  options: Partial<DatabaseOptions> = {},
): Promise<DatabaseHandle> {
  return createDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    poolMax: 4,
    statementTimeoutMs: 10_000,
    ...options,
  });
}

/**
 * A migrated database of the caller's own. On PostgreSQL: a new database
 * on the TEST_DATABASE_URL server. On PGlite: a copy of the run's template.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ups-test-db-'));
  try {
    return testDatabaseUrl
      ? await createPostgresTestDatabase(testDatabaseUrl, dataDir)
      : await createPGliteTestDatabase(dataDir);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function createPostgresTestDatabase(
  serverUrl: string,
  dataDir: string,
): Promise<TestDatabase> {
  const name = `${inject('testRunId')}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = inject('pgTemplateDatabase');
  if (!template) {
    throw new Error(
      'No PostgreSQL template: run the tests through vitest.config.ts (globalSetup).',
    );
  }
  // A copy of the run's migrated template (test/global-setup.ts): the server
  // copies its files, far faster than running every migration again.
  await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  let handle: DatabaseHandle | undefined;
  try {
    handle = await createDatabase({ databaseUrl, dataDir, ...HANDLE_OPTIONS });
  } catch (error) {
    await handle?.close();
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    throw error;
  }
  const opened = handle;
  return {
    ...opened,
    databaseUrl,
    dataDir,
    async destroy() {
      await opened.close();
      // FORCE: a service process a test started may still hold connections.
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function createPGliteTestDatabase(dataDir: string): Promise<TestDatabase> {
  const template = inject('pgliteTemplateDir');
  if (!template) {
    throw new Error('No PGlite template: run the tests through vitest.config.ts (globalSetup).');
  }
  // Copying the migrated template (~40 MB) and reopening it takes well under a
  // second; creating and migrating a new PGlite takes seconds and far more memory.
  await cp(template, dataDir, { recursive: true });
  const handle = await createDatabase({ databaseUrl: undefined, dataDir, ...HANDLE_OPTIONS });
  return {
    ...handle,
    databaseUrl: undefined,
    dataDir,
    async destroy() {
      await handle.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on the server's maintenance connection (CREATE/DROP DATABASE). */
export async function adminQuery(serverUrl: string, statement: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}
