import { initTRPC, type TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { parseBearer } from '../auth/bearer.js';
import {
  principalKey,
  type FanPrincipal,
  type Principal,
  type ServicePrincipal,
  type ServiceScope,
} from '../auth/principal.js';
import { rateLimitHeaders } from '../rate-limit.js';
import type { Context } from './context.js';
import { AppError, UserGoneError } from '../app-error.js';
import { ERROR_TABLE, toAppError, toTRPCError } from '../error-mapping.js';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { inSpan } from '../telemetry/tracing.js';
import { jsonOnce } from '../live/json-once.js';

/** How often an open live stream sends a heartbeat (an SSE `ping` event). */
export const SSE_PING_MS = 15_000;

/**
 * A procedure's meta: the whole declaration of its REST operation. `openapi`
 * is trpc-to-openapi's (method, path, summary, `tags`, and `errorResponses`:
 * every error status the operation can answer with); `created` and
 * `serviceScope` are what the adapter cannot say.
 */
export type OperationMeta = OpenApiMeta<{
  /** Description of the 201 REST answers when the call created something (`ctx.response.created`). */
  created?: string;
  /** The call always creates (a POST that makes a new resource): REST answers only 201. */
  alwaysCreated?: true;
  /** The scope a service operation needs; set by serviceProcedure, documented in openapi.json. */
  serviceScope?: ServiceScope;
  /** The largest request body it reads, in KiB, where that is not the contract's 16 (src/http/body.ts). */
  maxBodyKiB?: number;
}>;

/**
 * The one tRPC instance. Errors reach clients as the standard tRPC shape with
 * the contract code in `data.errorCode` (and `data.issues` for validation);
 * internal details never leave the process.
 */
const t = initTRPC
  .context<Context>()
  .meta<OperationMeta>()
  .create({
    // Live subscriptions (Server-Sent Events): a ping every 15 s keeps idle
    // streams open through proxies; a client that hears nothing for 40 s reconnects.
    // A message shared by many streams is serialised once (`stringify`: our
    // patch of @trpc/server, docs/upstream/trpc-server-sse-stringify.md).
    sse: {
      ping: { enabled: true, intervalMs: SSE_PING_MS },
      client: { reconnectAfterInactivityMs: 40_000 },
      stringify: jsonOnce,
    },
    errorFormatter({ shape, error }) {
      const appError = toAppError(error);
      return {
        message: appError.message,
        code: shape.code,
        data: {
          code: ERROR_TABLE[appError.code].trpc,
          httpStatus: ERROR_TABLE[appError.code].status,
          path: shape.data.path,
          errorCode: appError.code,
          issues: appError.issues,
          retryAt: appError.retryAt?.toISOString(),
        },
      };
    },
  });

/**
 * Every procedure's error leaves as a TRPCError whose cause is its AppError
 * and whose code is that AppError's tRPC code (src/error-mapping.ts: the one
 * error path). `mapped` applies the rule to a result, `mapErrors` to a
 * procedure; a middleware that does it itself catches what it throws.
 */
function mapped<R extends { ok: boolean; error?: unknown }>(result: R): R {
  if (!result.ok) {
    const error = result.error as TRPCError;
    const appError = toAppError(error);
    const wrapped = error.cause === appError && error.code === ERROR_TABLE[appError.code].trpc;
    if (!wrapped) throw toTRPCError(appError);
  }
  return result;
}

/**
 * The procedure's span (named after the procedure; docs/OPERATIONS.md, Traces), so
 * one trace holds the HTTP request, the procedure and its SQL. Opened by the
 * first middleware of every procedure (mapErrors, protectedProcedure): no
 * middleware of its own, which would copy the call's context once more.
 */
function procedureSpan<R extends { ok: boolean; error?: unknown }>(
  path: string,
  type: string,
  run: () => Promise<R>,
): Promise<R> {
  return inSpan(
    path,
    {
      attributes: { 'rpc.system': 'trpc', 'rpc.method': path, 'trpc.type': type },
      errorStatus: false,
    },
    async (span) => {
      try {
        const result = await run();
        if (span && !result.ok) markFailure(span, result.error);
        return result;
      } catch (error) {
        if (span) markFailure(span, error);
        throw error;
      }
    },
  );
}

/** The contract's error code on the span; an error status only for the service's own failures (5xx). */
function markFailure(span: Span, error: unknown): void {
  const appError = toAppError(error);
  span.setAttribute('app.error_code', appError.code);
  if (ERROR_TABLE[appError.code].status >= 500) {
    span.recordException(appError);
    span.setStatus({ code: SpanStatusCode.ERROR, message: appError.code });
  }
}

/**
 * Over a WebSocket (src/http/ws-face.ts) only subscriptions are served:
 * queries and mutations take HTTP, where the request's middlewares (per-IP
 * limit, body limits, the request log line) apply.
 */
function refuseOverSocket(ctx: Context, type: string): void {
  if (ctx.transport === 'ws' && type !== 'subscription') {
    throw toTRPCError(
      new AppError(
        'METHOD_NOT_ALLOWED',
        'Over the WebSocket only subscriptions are served; call queries and mutations over HTTP',
      ),
    );
  }
}

const mapErrors = t.middleware(({ ctx, path, type, next }) =>
  procedureSpan(path, type, async () => {
    refuseOverSocket(ctx, type);
    return mapped(await next());
  }),
);

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors);

/**
 * Verifies the bearer token (or finds it in the token cache) and applies the
 * caller's rate limit (per fan, or per service client) once per HTTP request:
 * every call of a tRPC batch shares the result (or the refusal), and the limit
 * takes one request per call. The limit is keyed by principalKey and checked
 * before any database work, so a limited caller costs no query. OpenAPI's
 * `protect` only documents this; this enforces it. Then refuses a service
 * token (403 FAN_TOKEN_REQUIRED): every operation built on it acts for a fan.
 * Alone (without a user id) only for DELETE /api/user, which must not create
 * the user it deletes; every other fan operation is a protectedProcedure.
 */
export const authenticatedProcedure = publicProcedure.use(async ({ ctx, next }) =>
  next({ ctx: { principal: fanOf(await principalOf(ctx)) } }),
);

/**
 * A fan operation: authenticated as above (a service token is refused), and
 * with the fan's user id (created on first sight, cached per process). One
 * middleware does what publicProcedure's and authenticatedProcedure's do as
 * well: every tRPC middleware copies the call's options and context, which on
 * the write path cost more CPU than the rest of tRPC.
 */
export const protectedProcedure = t.procedure.use(({ ctx, path, type, next }) =>
  procedureSpan(path, type, async () => {
    try {
      refuseOverSocket(ctx, type);
      const principal = fanOf(await principalOf(ctx));
      const { db, userIds } = ctx.deps;
      for (let attempt = 1; ; attempt += 1) {
        const userId = await userIds.resolve(db, principal);
        ctx.identify({ userId });
        const result = await next({ ctx: { principal, userId } });
        // The fan's reads after their write see it (read-your-writes; db/read-router.ts).
        if (type === 'mutation') ctx.deps.wrote(userId);
        if (result.ok || !(toAppError(result.error) instanceof UserGoneError)) {
          return mapped(result);
        }
        // The account was deleted (on any instance) after its id was resolved:
        // whatever the operation did went with it. The identity starts over as a
        // new user; only deletions racing its requests again and again end here.
        userIds.forget(principal);
        if (attempt === USER_GONE_ATTEMPTS) {
          throw new AppError(
            'UNAVAILABLE',
            'The account was deleted while this request ran; retry',
            { retryAfterSeconds: 1 },
          );
        }
      }
    } catch (error) {
      throw toTRPCError(toAppError(error));
    }
  }),
);

/**
 * A service operation needing `scope`: only a service token holding it, from a
 * client SERVICE_CLIENT_IDS allows (when set), gets through, with the service
 * principal in `ctx.principal`. A fan token, or a service token without the
 * scope, is 403 INSUFFICIENT_SCOPE; an unlisted client is 403
 * CLIENT_NOT_ALLOWED. No user is looked up or created. The scope is kept in
 * the procedure's meta, so openapi.json names it in the operation's security.
 */
export function serviceProcedure(scope: ServiceScope) {
  return publicProcedure.meta({ serviceScope: scope }).use(async ({ ctx, next }) =>
    next({
      ctx: {
        principal: serviceOf(await principalOf(ctx), scope, ctx.deps.config.serviceClientIds),
      },
    }),
  );
}

/** How often an operation runs when its user keeps being deleted under it (by DELETE /api/user). */
const USER_GONE_ATTEMPTS = 3;

function fanOf(principal: Principal): FanPrincipal {
  if (principal.kind === 'fan') return principal;
  throw new AppError(
    'FAN_TOKEN_REQUIRED',
    `This operation acts for a signed-in fan; it cannot be called with a service token ` +
      `(client "${principal.clientId}")`,
  );
}

function serviceOf(
  principal: Principal,
  scope: ServiceScope,
  allowedClients: readonly string[] | undefined,
): ServicePrincipal {
  if (principal.kind === 'fan') {
    throw new AppError(
      'INSUFFICIENT_SCOPE',
      `This operation is for services: it needs a service token with the "${scope}" scope, ` +
        "not a fan's token",
      { scope },
    );
  }
  if (allowedClients !== undefined && !allowedClients.includes(principal.clientId)) {
    throw new AppError(
      'CLIENT_NOT_ALLOWED',
      `The client "${principal.clientId}" is not among the services this deployment trusts ` +
        '(SERVICE_CLIENT_IDS)',
    );
  }
  if (!principal.scopes.includes(scope)) {
    throw new AppError(
      'INSUFFICIENT_SCOPE',
      `This operation needs the "${scope}" scope; the token of client ` +
        `"${principal.clientId}" has ${principal.scopes.map((held) => `"${held}"`).join(', ')}`,
      { scope },
    );
  }
  return principal;
}

/**
 * The request's principal: its token verified and its rate limit taken, once
 * per HTTP request (or WebSocket connection, where it is done at connect).
 */
export function principalOf(ctx: Context): Promise<Principal> {
  ctx.authentication.pending ??= authenticate(ctx);
  return ctx.authentication.pending;
}

async function authenticate(ctx: Context): Promise<Principal> {
  const { verifier, userRateLimiter, serviceRateLimiter } = ctx.deps;
  const principal = await verifier.verify(parseBearer(ctx.authorization));
  if (principal.kind === 'service') ctx.identify({ clientId: principal.clientId });
  // Two limiters with their own names and sizes: a fan's and a service's
  // requests never share a bucket, whatever their ids.
  const limiter = principal.kind === 'fan' ? userRateLimiter : serviceRateLimiter;
  if (limiter) {
    const limit = await limiter.take(principalKey(principal), ctx.calls);
    ctx.setHeaders(rateLimitHeaders([ctx.ipRateLimit, limit]));
    if (!limit.allowed) {
      throw new AppError(
        'RATE_LIMITED',
        `Too many requests for this ${principal.kind === 'fan' ? 'user' : 'client'}; slow down`,
        { retryAfterSeconds: limit.retryAfterSeconds },
      );
    }
  }
  return principal;
}
