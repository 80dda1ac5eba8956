/**
 * `npm run migrate`: apply pending migrations to the configured database
 * (DATABASE_URL, or the embedded one in DATA_DIR) and exit. Prints one JSON
 * line per migration applied; exit code 0 on success, 1 with a message on
 * stderr otherwise.
 */
import { createDatabase, type DatabaseHandle } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { waitForDatabase } from '../db/wait.js';
import { loadConfigOrExit } from '../src/config.js';

async function main(): Promise<number> {
  const config = loadConfigOrExit();

  let database: DatabaseHandle | undefined;
  try {
    database = await createDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolMax: 1, // the migrator works on one connection
      statementTimeoutMs: config.database.statementTimeoutMs,
    });
    await waitForDatabase(database.db, {
      timeoutMs: config.database.startupTimeoutMs,
      onAttempt: ({ attempt, reason, retryInMs }) =>
        process.stderr.write(
          `${JSON.stringify({ status: 'database not reachable yet', attempt, reason, retryInMs })}\n`,
        ),
    });
    const applied = await migrateToLatest(database.db);
    for (const name of applied) {
      process.stdout.write(`${JSON.stringify({ migration: name, status: 'applied' })}\n`);
    }
    if (applied.length === 0) {
      process.stdout.write(`${JSON.stringify({ status: 'already up to date' })}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await database?.close().catch(() => {});
  }
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
