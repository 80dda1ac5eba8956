import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { Kysely } from 'kysely';
import type { OpenApiRouter } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/index.js';
import type { DatabaseHandle } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { createApp } from '../../src/app.js';
import { createAuthVerifier } from '../../src/auth/key-sources.js';
import type { AuthVerifier } from '../../src/auth/verifier.js';
import { loadConfig, type Config } from '../../src/config.js';
import { hardenServer } from '../../src/http/client-error.js';
import { createLive, type Live } from '../../src/live/service.js';
import type { BoardOptions } from '../../src/live/boards.js';
import type { WebhookWorkerOptions } from '../../src/live/webhooks.js';
import { createLogger } from '../../src/logger.js';
import { connectRateLimitStore } from '../../src/rate-limit.js';
import { createTestDatabase, openPool, type TestDatabase } from './test-db.js';
import { assertResponseConforms } from './openapi-conformance.js';
import { startTokenIssuer, type TokenIssuer } from './token-issuer.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string | Buffer;
  contentType?: string | null;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  config: Config;
  db: Kysely<Database>;
  issuer: TokenIssuer;
  /** The app's live streams, outbox retention and webhook worker. */
  live: Live;
  /** Every JSON log line the app wrote. */
  logs: string[];
  /** A fan's token for `subject` from the test identity provider. */
  token(subject?: string): Promise<string>;
  /** A service's client-credentials token for `clientId` holding `scopes` (default events:write). */
  serviceToken(clientId?: string, scopes?: string | readonly string[]): Promise<string>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  trpc(token: string): TRPCClient<AppRouter>;
  close(): Promise<void>;
}

let subjectCounter = 0;
/** A subject no other test uses. */
export function uniqueSubject(prefix = 'user'): string {
  subjectCounter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${subjectCounter}`;
}

/**
 * The real app on an ephemeral port: real HTTP, a real database (see
 * test-db.ts), tokens signed by a key served as a JWKS over HTTP.
 */
export async function startTestApp(options: {
  database: TestDatabase;
  issuer?: TokenIssuer;
  env?: Record<string, string>;
  /** The app's clock (which season boards a write credits); the system clock by default. */
  clock?: () => Date;
  /** Wraps the real verifier the app is given (e.g. to count verifications). */
  wrapVerifier?: (verifier: AuthVerifier) => AuthVerifier;
  webhookOptions?: WebhookWorkerOptions;
  /** Procedures of the test's own to serve instead of the service's (createApp's `router`). */
  router?: OpenApiRouter;
  /** The Redis command timeout of the rate-limit store (REDIS_URL); the service's default if unset. */
  redisCommandTimeoutMs?: number;
  /** How often the leaderboard streams' boards are read (src/live/boards.ts). */
  boardOptions?: BoardOptions;
}): Promise<TestApp> {
  const issuer = options.issuer ?? (await startTokenIssuer());
  const config = loadConfig({
    NODE_ENV: 'test',
    AUTH_ISSUER: issuer.issuer,
    AUTH_JWKS_URL: issuer.jwksUrl,
    RATE_LIMIT_PER_USER: '0',
    RATE_LIMIT_PER_IP: '0',
    LOG_LEVEL: 'info',
    DATA_DIR: options.database.dataDir,
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (process.env.DEBUG_LOGS) process.stderr.write(chunk);
      callback();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const real = await createAuthVerifier(config.auth, { dataDir: config.dataDir, logger });
  const verifier = options.wrapVerifier ? options.wrapVerifier(real) : real;
  const live = createLive({
    config,
    database: options.database,
    logger,
    webhookOptions: options.webhookOptions,
    // Only apps a test runs webhooks with deliver (the others share its database).
    webhookWorker: options.webhookOptions !== undefined || config.webhook !== undefined,
    boardOptions: options.boardOptions,
  });
  await live.start();
  const rateLimitStore = config.rateLimit.redisUrl
    ? connectRateLimitStore(config.rateLimit.redisUrl, logger, {
        commandTimeoutMs: options.redisCommandTimeoutMs,
      })
    : undefined;
  // Requests sent before the store has connected are counted in this
  // instance's memory (by design, src/rate-limit.ts); a test starts once the
  // connection has settled either way: ready, or failed.
  if (rateLimitStore && rateLimitStore.status !== 'ready') {
    await new Promise<void>((resolve) => {
      rateLimitStore.once('ready', resolve);
      rateLimitStore.once('error', resolve);
    });
  }
  const app = createApp({
    config,
    database: options.database,
    verifier,
    logger,
    live,
    rateLimitStore,
    ...(options.clock && { clock: options.clock }),
    ...(options.router && { router: options.router }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  hardenServer(server, logger);
  // The server, its test clients and PGlite share this process's event loop:
  // a query that blocks it past the keep-alive timeout lets the server close
  // an idle socket just as a client reuses it (ECONNRESET on a request that
  // never reached the app). Here only clients close idle sockets (undici
  // after 4 s), and close() ends the rest.
  server.keepAliveTimeout = 0;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    config,
    db: options.database.db,
    issuer,
    live,
    logs,
    token: (subject = uniqueSubject()) => issuer.sign(subject),
    serviceToken: (clientId = uniqueSubject('service'), scopes = 'events:write') =>
      issuer.signService(clientId, scopes),
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const hasBody = opts.body !== undefined || opts.rawBody !== undefined;
      if (opts.contentType !== null && (hasBody || opts.contentType)) {
        headers['content-type'] = opts.contentType ?? 'application/json';
      }
      const response = await fetch(`${url}${path}`, {
        method,
        headers,
        body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
      });
      const text = await response.text();
      // Every response must match what openapi.json documents for it (docs/CONTRACT.md, What callers can rely on).
      assertResponseConforms({
        method,
        url: path,
        status: response.status,
        headers: response.headers,
        text,
      });
      let body: unknown = undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: response.status, headers: response.headers, body: body as any, text };
    },
    trpc(token) {
      return createTRPCClient<AppRouter>({
        links: [
          httpLink({ url: `${url}/trpc`, headers: () => ({ authorization: `Bearer ${token}` }) }),
        ],
      });
    },
    async close() {
      await live.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rateLimitStore?.disconnect();
      if (!options.issuer) await issuer.stop();
    },
  };
}

/** A second app instance; its close() also closes the pool it opened. */
export interface OtherInstance extends TestApp {
  /** Its own pool on PostgreSQL; on PGlite the test database's handle itself. */
  handle: DatabaseHandle;
}

/** Another app on `database`: its own pool on PostgreSQL, the same handle on PGlite (one session). */
export async function startOtherInstance(
  database: TestDatabase,
  options: Omit<Parameters<typeof startTestApp>[0], 'database'> & { poolMax?: number } = {},
): Promise<OtherInstance> {
  const { poolMax, ...appOptions } = options;
  const pool = database.databaseUrl
    ? await openPool(database, poolMax === undefined ? {} : { poolMax })
    : undefined;
  // Property by property: `database` may stand for a file's database (useTestApp).
  const handle: TestDatabase = pool
    ? {
        ...pool,
        databaseUrl: database.databaseUrl,
        dataDir: database.dataDir,
        destroy: database.destroy,
      }
    : database;
  let app: TestApp;
  try {
    app = await startTestApp({ ...appOptions, database: handle });
  } catch (error) {
    await pool?.close();
    throw error;
  }
  return {
    ...app,
    handle,
    async close() {
      await app.close();
      await pool?.close();
    },
  };
}

/**
 * The usual setup of an integration test file: its own database and app,
 * started in beforeAll and closed in afterAll. The returned `app` and
 * `database` stand for those two and may be used once beforeAll has run
 * (inside tests and later hooks); touching them earlier throws. `clock` is
 * the app's and `env` adds to its environment (see startTestApp).
 */
export function useTestApp(options: { clock?: () => Date; env?: Record<string, string> } = {}): {
  app: TestApp;
  database: TestDatabase;
} {
  let started: { app: TestApp; database: TestDatabase } | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    started = {
      database,
      app: await startTestApp({ database, clock: options.clock, env: options.env }),
    };
  });
  afterAll(async () => {
    await started?.app.close();
    await started?.database.destroy();
  });
  const forward = <T extends object>(name: 'app' | 'database'): T =>
    new Proxy({} as T, {
      get(_target, key) {
        if (!started) throw new Error(`useTestApp: ${name} is used before beforeAll has run`);
        const target = started[name];
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { app: forward<TestApp>('app'), database: forward<TestDatabase>('database') };
}
