import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { adminQuery, testDbKind } from './helpers/test-db.js';

/**
 * Runs once per `vitest run` and project, in the main process. On PGlite it
 * provides one migrated data dir that every test database copies
 * (test/helpers/test-db.ts), because creating a PGlite costs seconds and
 * ~800 MB while copying and reopening one is fast. On PostgreSQL it checks the
 * server is reachable, migrates one template database that every test database
 * is created from (`CREATE DATABASE … TEMPLATE`, a file copy on the server,
 * instead of running every migration again), and at the end drops it and any
 * test database a crashed worker left behind.
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
    project.provide('pgTemplateDatabase', await pgTemplate(serverUrl, `${runId}_template`));
    // Tests of the embedded database itself (a production start with
    // ALLOW_EMBEDDED_DATABASE) copy it on PostgreSQL runs too; usually cached.
    project.provide('pgliteTemplateDir', await (template ??= pgliteTemplate()));
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

  project.provide('pgliteTemplateDir', await (template ??= pgliteTemplate()));
  return async () => {};
}

/** A migrated database on the server, closed so that CREATE DATABASE can copy it. */
async function pgTemplate(serverUrl: string, name: string): Promise<string> {
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await createDatabase({
    databaseUrl: url.toString(),
    dataDir: tmpdir(), // PGlite's; unused on PostgreSQL
    poolMax: 1,
    statementTimeoutMs: 10_000,
  });
  try {
    await migrateToLatest(database.db);
  } finally {
    await database.close();
  }
  // Through PgBouncer the pool's close leaves the pooler's server connection
  // to the template open, and CREATE DATABASE … TEMPLATE refuses a source
  // database with any connection: end them.
  await adminQuery(
    serverUrl,
    `select pg_terminate_backend(pid) from pg_stat_activity
     where datname = '${name}' and pid <> pg_backend_pid()`,
  );
  return name;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'ups-pglite-template');
/** One build per run, however many projects ask. */
let template: Promise<string> | undefined;

/**
 * The migrated PGlite template, kept in node_modules/.cache under a hash of
 * what it is made of (db/, patches/, the PGlite version): a later run with the
 * same inputs copies it instead of creating a PGlite, and any change to a
 * migration or to db/ builds a new one (docs/decisions/0121-pglite-template-cache.md).
 */
async function pgliteTemplate(): Promise<string> {
  const dir = path.join(CACHE, await templateKey());
  if (existsSync(path.join(dir, 'pgdata', 'PG_VERSION'))) return dir;
  await mkdir(CACHE, { recursive: true });
  const building = await mkdtemp(path.join(CACHE, 'building-'));
  try {
    const started = performance.now();
    const database = await createDatabase({
      databaseUrl: undefined,
      dataDir: building,
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
    // A finished template appears at once; a concurrent run that finished first keeps its own.
    await rename(building, dir).catch((error: unknown) => {
      if (!existsSync(dir)) throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/** A hash of every file the migrated template is made of. */
async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  const pglite = JSON.parse(
    await readFile(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  hash.update(`pglite ${pglite.version}\n`);
  for (const folder of ['db', 'patches']) {
    const entries = await readdir(path.join(ROOT, folder), {
      recursive: true,
      withFileTypes: true,
    });
    const files = entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
    for (const file of files) {
      hash.update(`${path.relative(ROOT, file)}\n`);
      hash.update(await readFile(file));
    }
  }
  return hash.digest('hex').slice(0, 16);
}
