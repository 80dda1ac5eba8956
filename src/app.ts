import type { Server } from 'node:http';
import express from 'express';
import type { OpenApiRouter } from 'trpc-to-openapi';
import type { Redis } from 'ioredis';
import type { DatabaseHandle } from '../db/database.js';
import { appRouter, WEBHOOK_EVENTS } from '../routers/index.js';
import { withTokenCache } from './auth/token-cache.js';
import { createUserIdResolver } from './auth/user-ids.js';
import { CatalogCache } from './services/catalog.js';
import { FirstPageCache } from './services/first-page.js';
import { UserStateCache } from './services/state-cache.js';
import type { AuthVerifier } from './auth/verifier.js';
import type { Config } from './config.js';
import type { AppDeps } from './trpc/context.js';
import { appServer } from './http/app-server.js';
import { consoleRouter } from './http/console.js';
import { devIdpRouter } from './http/dev-idp.js';
import { docsRouter } from './http/docs.js';
import { ipRateLimit } from './http/ip-rate-limit.js';
import { bodyLimits, jsonBody, trpcBodyGuard } from './http/body.js';
import { methodGuard, methodRule, refuseConnect, TRPC_MOUNT } from './http/methods.js';
import { createRateLimiter } from './rate-limit.js';
import { operationResolver } from './http/operations.js';
import { requestContext } from './http/request-context.js';
import { restHandler } from './http/rest-face.js';
import { corsPolicy, securityHeaders } from './http/security.js';
import { errorHandler, sendError } from './http/send-error.js';
import { trpcBatchLimit } from './http/trpc-batch.js';
import { trpcHandler } from './http/trpc-face.js';
import { attachLiveSockets } from './http/ws-face.js';
import { AppError } from './app-error.js';
import type { Live } from './live/service.js';
import type { Logger } from './logger.js';
import { buildOpenApiDocument } from './openapi.js';
import { listProcedures } from './trpc/procedures.js';

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  verifier: AuthVerifier;
  logger: Logger;
  /** Defaults to the system clock. */
  clock?: () => Date;
  /** The instance's live streams (createLive); started and stopped by the caller. */
  live: Live;
  /** Where the rate limits count (connectRateLimitStore) when REDIS_URL is set; else in memory. */
  rateLimitStore?: Redis | undefined;
  /** The procedures to serve; the service's own by default. Tests serve routers of their own. */
  router?: OpenApiRouter;
}

/**
 * Builds the service's HTTP server (src/http/app-server.ts), whose every
 * request goes through one Express chain: request context, security
 * headers, the method rules, then REST through trpc-to-openapi's middleware
 * or /trpc through tRPC's Express adapter. No side effects: nothing listens,
 * nothing connects; the server entry and the tests both call this with
 * their own collaborators and make it listen.
 * This is the composition root: the only file under src/ that imports
 * routers/; the faces and the OpenAPI builder are handed the router.
 */
export function createApp({
  config,
  database,
  verifier,
  logger,
  live,
  rateLimitStore,
  clock = () => new Date(),
  router = appRouter,
}: AppOptions): Server {
  const limiter = (name: string, perMinute: number) =>
    createRateLimiter({
      name,
      perMinute,
      redis: rateLimitStore,
      keyPrefix: config.rateLimit.redisKeyPrefix,
    });
  // A user looked up (maybe created) on the primary is read on the replica only once it is there.
  const userIds = createUserIdResolver({ onLookup: (userId) => database.reads.wrote(userId) });
  live.hub.onAccountDeleted((userId) => userIds.forgetUser(userId));
  live.hub.onNotificationsLost(() => userIds.clear());
  const firstPages = new FirstPageCache({ ttlMs: config.firstPageCacheMs });
  const deps: AppDeps = {
    config,
    db: database.db,
    statements: database.statements,
    reads: database.reads,
    firstPages,
    wrote(userId) {
      database.reads.wrote(userId);
      firstPages.clear();
    },
    verifier: withTokenCache(verifier, { ttlSeconds: config.authTokenCacheSeconds }),
    logger,
    userRateLimiter: limiter('user:', config.rateLimit.perUser),
    serviceRateLimiter: limiter('service:', config.rateLimit.perService),
    newSubjectLimiter: limiter('new_subjects:', config.activity.newSubjectsPerMinute),
    userIds,
    userStates: new UserStateCache(config.userStateCacheSize),
    catalog: new CatalogCache(database.db, { refreshMs: config.catalogRefreshMs, logger }),
    clock,
    live: { hub: live.hub, boards: live.boards },
  };
  const openApiDocument = buildOpenApiDocument(router, {
    serverUrl: config.publicUrl ?? '/',
    webhooks: WEBHOOK_EVENTS,
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  const procedures = listProcedures(router);
  app.use(requestContext(logger, operationResolver(openApiDocument, procedures)));
  // helmet's CSP is the API's; a route serving HTML (GET /docs) sets its own header over it.
  app.use(securityHeaders(), corsPolicy(config.corsOrigins));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    try {
      await database.ping();
      res.json({ status: 'ready', database: database.kind });
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      sendError(
        res,
        new AppError('UNAVAILABLE', 'The database is not reachable', { retryAfterSeconds: 1 }),
      );
    }
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use('/docs', docsRouter());
  app.use('/admin', consoleRouter(config.console, config.auth.issuer));
  // The development identity provider's sign-in (authorization code + PKCE) for the console.
  if (config.auth.kind === 'dev') app.use('/dev-idp', devIdpRouter(config.dataDir));

  const methods = methodRule(openApiDocument, procedures);
  const limits = bodyLimits(procedures);
  app.use(methodGuard(methods));
  const ipLimit = ipRateLimit(limiter('ip:', config.rateLimit.perIp));
  // Batch size first: an oversized batch is refused before it is counted, read or verified.
  app.use(
    TRPC_MOUNT,
    trpcBatchLimit(),
    ipLimit,
    trpcBodyGuard(limits),
    trpcHandler(deps, router, limits),
  );
  // The OpenAPI adapter answers every path it does not know with a 404, so it comes last.
  app.use(ipLimit, jsonBody(limits), restHandler(deps, router));
  app.use(errorHandler);

  const server = appServer(app);
  refuseConnect(server, methods);
  // The live subscriptions over a WebSocket at /trpc, beside SSE (src/http/ws-face.ts).
  attachLiveSockets(server, deps, router);
  return server;
}
