import type { Request, Response } from 'express';
import type { TRPCRequestInfo } from '@trpc/server/http';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ReadRouter } from '../../db/read-router.js';
import type { CompiledStatements } from '../../db/statements.js';
import type { UserIdResolver } from '../auth/user-ids.js';
import type { Principal } from '../auth/principal.js';
import type { AuthVerifier } from '../auth/verifier.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { noteCaller } from '../http/observed.js';
import { callsOf } from '../http/trpc-batch.js';
import type { RateLimitDecision, RateLimiter } from '../rate-limit.js';
import type { LiveBoards } from '../live/boards.js';
import type { LiveHub } from '../live/hub.js';
import type { CatalogCache } from '../services/catalog.js';
import type { FirstPageCache } from '../services/first-page.js';
import type { UserStateCache } from '../services/state-cache.js';

/** Long-lived collaborators every request shares; built once by the app factory. */
export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  /** The database handle's compiled statements (db/statements.ts). */
  statements: CompiledStatements;
  /**
   * Which database a read uses (db/read-router.ts): `reads.shared` for boards
   * and other fans, `reads.own` for the caller's own data; writes use `db`.
   */
  reads: ReadRouter;
  /** Boards' first pages, shared by this instance's reads for a bounded time (src/services/first-page.ts). */
  firstPages: FirstPageCache;
  /**
   * After a fan's write committed (a fan mutation, or events recorded for the
   * fan): their reads see it (read-your-writes) and the first pages are read again.
   */
  wrote(userId: string): void;
  verifier: AuthVerifier;
  logger: Logger;
  /** Absent when RATE_LIMIT_PER_USER is 0. */
  userRateLimiter: RateLimiter | undefined;
  /** Per service client; absent when RATE_LIMIT_PER_SERVICE is 0. */
  serviceRateLimiter: RateLimiter | undefined;
  /** The users each service client's events create; absent when EVENT_NEW_SUBJECTS_PER_MINUTE is 0. */
  newSubjectLimiter: RateLimiter | undefined;
  userIds: UserIdResolver;
  /** Each user's state as this instance's last write of them left it (src/services/state-cache.ts). */
  userStates: UserStateCache;
  /** The game's definitions in force on this instance (src/services/catalog.ts). */
  catalog: CatalogCache;
  /** The time a write happens at, for choosing season boards; tests pass their own. */
  clock: () => Date;
  /** The instance's live fan-out and the shared leaderboard reads of its streams. */
  live: { hub: LiveHub; boards: LiveBoards };
}

/** Per-request context: no I/O happens here; authentication is the protected procedure's job. */
export interface Context {
  deps: AppDeps;
  authorization: string | undefined;
  requestId: string;
  logger: Logger;
  /**
   * Shared with the REST adapter's responseMeta (tRPC copies ctx between
   * middlewares, so this must stay one object): an operation that created
   * something sets `created` and REST answers 201 instead of 200.
   */
  response: { created: boolean };
  /** The per-IP limit's decision for this request, when that limit is on. */
  ipRateLimit: RateLimitDecision | undefined;
  /** The client's address (the `X-Forwarded-For` hop TRUST_PROXY selects behind a proxy). */
  ip: string | undefined;
  /** Procedure calls this HTTP request makes (a tRPC batch of n: n); rate limits count each. */
  calls: number;
  /**
   * The caller's verified identity, once per HTTP request and shared by every
   * call of a tRPC batch (one object, like `response`): the protected
   * procedure fills `pending` on the first call.
   */
  authentication: { pending?: Promise<Principal> };
  /** Sets response headers (e.g. RateLimit-*) on whichever face serves the request. */
  setHeaders(headers: Record<string, string>): void;
  /** Which transport carries the call: HTTP (REST and /trpc), or a WebSocket at /trpc (subscriptions only). */
  transport: 'http' | 'ws';
  /** Closes the connection at once (a live stream dropped for being too slow to read). */
  closeConnection(): void;
  /**
   * Bytes written to the connection that its socket has not sent yet: a
   * WebSocket's `bufferedAmount` (tRPC's WebSocket adapter sends without
   * waiting for the socket); 0 over HTTP, where the adapter writes a stream
   * only as fast as its socket drains.
   */
  unsentBytes(): number;
  /** Names who the request acts for on its log line (never the token). */
  identify(who: { userId?: string; clientId?: string }): void;
}

/** The context from plain values: what tests and server-side callers use. */
export function createContextInner(input: {
  deps: AppDeps;
  authorization?: string | undefined;
  requestId?: string;
  logger?: Logger;
  ipRateLimit?: RateLimitDecision;
  ip?: string | undefined;
  calls?: number;
  setHeaders?: (headers: Record<string, string>) => void;
  transport?: 'http' | 'ws';
  closeConnection?: () => void;
  unsentBytes?: () => number;
  identify?: (who: { userId?: string; clientId?: string }) => void;
}): Context {
  return {
    deps: input.deps,
    authorization: input.authorization,
    requestId: input.requestId ?? 'internal',
    logger: input.logger ?? input.deps.logger,
    response: { created: false },
    ipRateLimit: input.ipRateLimit,
    ip: input.ip,
    calls: input.calls ?? 1,
    authentication: {},
    setHeaders: input.setHeaders ?? (() => {}),
    transport: input.transport ?? 'http',
    closeConnection: input.closeConnection ?? (() => {}),
    unsentBytes: input.unsentBytes ?? (() => 0),
    identify: input.identify ?? (() => {}),
  };
}

/**
 * The bearer credentials of a request: the Authorization header, or for a
 * subscription only, the `token` connection parameter (a browser's
 * EventSource cannot set headers, so httpSubscriptionLink's connectionParams
 * put it in the URL; the request log never records query strings).
 */
function authorizationOf(req: Request, info: TRPCRequestInfo | undefined): string | undefined {
  if (req.headers.authorization !== undefined) return req.headers.authorization;
  const isSubscription = info?.calls[0]?.procedure?._def.type === 'subscription';
  const token = info?.connectionParams?.token;
  return isSubscription && typeof token === 'string' ? `Bearer ${token}` : undefined;
}

/**
 * The adapters' factory (tRPC's Express adapter and trpc-to-openapi's): reads
 * only what it needs from the Express request.
 */
export function contextFactory(deps: AppDeps) {
  return ({ req, res, info }: { req: Request; res: Response; info?: TRPCRequestInfo }): Context =>
    createContextInner({
      deps,
      authorization: authorizationOf(req, info),
      ip: req.ip,
      closeConnection: () => res.destroy(),
      identify: (who) => noteCaller(res, who),
      requestId: req.requestId,
      logger: req.log,
      ipRateLimit: res.locals.ipRateLimit as RateLimitDecision | undefined,
      calls: callsOf(res),
      setHeaders: (headers) => {
        if (!res.headersSent) res.set(headers);
      },
    });
}

/**
 * The REST status of a successful call: 201 when the operation created
 * something (it set `ctx.response.created`), else 200.
 */
export function successStatus(ctx: Context | undefined): 200 | 201 {
  return ctx?.response.created ? 201 : 200;
}
