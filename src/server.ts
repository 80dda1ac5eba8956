import type { Server, ServerResponse } from 'node:http';
import { createDatabase } from '../db/database.js';
import { migrateToLatest, pendingMigrations } from '../db/migrate.js';
import { waitForDatabase } from '../db/wait.js';
import { createApp } from './app.js';
import { createAuthVerifier } from './auth/key-sources.js';
import { loadConfigOrExit, unknownVariables } from './config.js';
import { hardenServer } from './http/client-error.js';
import { createLive } from './live/service.js';
import { createLogger, flushLogs } from './logger.js';
import { metrics, metricsServer, trackOutbox, trackPool, trackReplica } from './metrics.js';
import { connectRateLimitStore } from './rate-limit.js';
import { stopTracing, tracingConfigured, tracingEnabled } from './telemetry/tracing.js';

/**
 * The entry point: read config, migrate (unless MIGRATE_ON_START=false), listen. SIGTERM/SIGINT stop accepting
 * connections, let in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), close
 * the database and exit 0.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const unknown = unknownVariables(process.env);
  if (unknown.length > 0) {
    logger.warn(
      { variables: unknown },
      `unknown environment variables that look like this service's, ignored: ${unknown
        .map(({ name, didYouMean }) =>
          didYouMean ? `${name} (did you mean ${didYouMean}?)` : name,
        )
        .join(', ')} (the variables are listed in .env.example)`,
    );
  }
  const database = await createDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolMax: config.database.poolMax,
    statementTimeoutMs: config.database.statementTimeoutMs,
    onIdleClientError: (err) => logger.warn({ err }, 'database connection lost'),
    preparedStatements: config.database.preparedStatements,
    onPreparedStatementsOff: (err) =>
      logger.warn(
        { err },
        'named statements refused (a transaction pooler?); running unnamed from now on: set DATABASE_PREPARED_STATEMENTS=off',
      ),
    listenUrl: config.live.listenUrl,
    replica: config.database.replica && {
      ...config.database.replica,
      onChange: ({ serving, reason, error }) =>
        serving
          ? logger.info({ reason }, 'reads go to the replica')
          : logger.warn({ reason, err: error }, 'reads go to the primary'),
    },
    onPoolAcquire: metrics.poolAcquired,
  });
  if (tracingConfigured(process.env) && !tracingEnabled()) {
    logger.warn(
      'an OTLP endpoint is configured but tracing did not start: preload it with ' +
        '`node --import ./dist/src/telemetry/preload.js dist/src/server.js` (npm start does)',
    );
  }
  // A database that is not up yet (ECONNREFUSED, "the database system is
  // starting up") is waited for, not a failed start (docs/OPERATIONS.md).
  await waitForDatabase(database.db, {
    timeoutMs: config.database.startupTimeoutMs,
    onAttempt: ({ attempt, reason, waitedMs, retryInMs }) =>
      logger.warn(
        { attempt, reason, waitedMs, retryInMs },
        retryInMs === undefined
          ? 'database not reachable: giving up'
          : 'database not reachable yet: retrying',
      ),
  });
  if (config.migrateOnStart) {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  } else {
    const pending = await pendingMigrations(database.db);
    if (pending.length > 0) {
      await database.close();
      throw new Error(
        `${pending.length} migration(s) not applied (${pending.join(', ')}) and MIGRATE_ON_START=false: ` +
          'run `npm run migrate` first, or start with MIGRATE_ON_START=true',
      );
    }
  }
  const verifier = await createAuthVerifier(config.auth, { dataDir: config.dataDir, logger });
  if (config.auth.kind === 'dev') {
    logger.warn(
      'development identity provider active: get a token with `npm run token -- <subject>`',
    );
  }

  const live = createLive({ config, database, logger });
  await live.start();
  const rateLimitStore = config.rateLimit.redisUrl
    ? connectRateLimitStore(config.rateLimit.redisUrl, logger)
    : undefined;
  const server = createApp({ config, database, verifier, logger, live, rateLimitStore }).listen(
    config.port,
    config.host,
  );
  hardenServer(server, logger);
  const inFlight = trackResponses(server);
  await listening(server);
  trackPool(() => database.poolStats());
  if (database.reads.hasReplica) trackReplica(database.reads);
  if (live.webhooks) trackOutbox(live.webhooks.lagSeconds.bind(live.webhooks));
  const metricsEndpoint =
    config.metricsPort === undefined
      ? undefined
      : metricsServer().listen(config.metricsPort, config.host);
  if (metricsEndpoint) await listening(metricsEndpoint);
  logger.info(
    {
      port: portOf(server) ?? config.port,
      metricsPort: metricsEndpoint && portOf(metricsEndpoint),
      database: database.kind,
      auth: config.auth.kind,
    },
    'listening',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    const forced = setTimeout(() => {
      logger.warn('shutdown timeout: closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    forced.unref();
    // Live streams never finish on their own: end them (clients reconnect
    // elsewhere with their last event id) so draining can complete.
    const draining = drain(server, inFlight);
    await live.stop();
    await draining;
    metricsEndpoint?.close();
    await database.close();
    rateLimitStore?.disconnect();
    await stopTracing().catch((err: unknown) =>
      logger.warn({ err }, 'tracing: final export failed'),
    );
    logger.info('stopped');
    await flushLogs(logger);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function listening(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
}

function portOf(server: Server): number | undefined {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : undefined;
}

/** The responses not yet finished, so shutdown can mark them `Connection: close`. */
function trackResponses(server: Server): Set<ServerResponse> {
  const open = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  return open;
}

/**
 * Stops accepting connections and resolves once every in-flight request has
 * been answered. Responses in flight and any sent from now on say
 * `Connection: close`; keep-alive connections are closed as soon as they fall idle.
 */
function drain(server: Server, inFlight: Set<ServerResponse>): Promise<void> {
  for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
  server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  return new Promise<void>((resolve) => {
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
