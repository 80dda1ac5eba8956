import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../db/queries/errors.js';
import {
  AppError,
  ERROR_CODES,
  schemaIssues,
  validationError,
  type ErrorCode,
  type Issue,
} from './app-error.js';
import type { Logger } from './logger.js';

/*
 * The one error path: code throws an AppError (or anything else, which
 * toAppError turns into one); the tRPC middleware in src/trpc/init.ts wraps it
 * once in a TRPCError whose code comes from ERROR_TABLE and whose cause is that
 * AppError; every face reads the AppError back from the cause (toAppError) and
 * answers with errorStatus, errorHeaders and errorBody. Errors tRPC raises
 * before any procedure runs (unknown path, unparsable body) become AppErrors
 * here too, once per error.
 */

/**
 * The one table from contract codes to tRPC codes and HTTP statuses
 * (docs/CONTRACT.md, Errors). Every face — REST, tRPC, Express middleware — reads it.
 */
export const ERROR_TABLE: Record<ErrorCode, { trpc: TRPC_ERROR_CODE_KEY; status: number }> = {
  VALIDATION_FAILED: { trpc: 'BAD_REQUEST', status: 400 },
  UNAUTHENTICATED: { trpc: 'UNAUTHORIZED', status: 401 },
  FAN_TOKEN_REQUIRED: { trpc: 'FORBIDDEN', status: 403 },
  INSUFFICIENT_SCOPE: { trpc: 'FORBIDDEN', status: 403 },
  CLIENT_NOT_ALLOWED: { trpc: 'FORBIDDEN', status: 403 },
  NOT_FOUND: { trpc: 'NOT_FOUND', status: 404 },
  METHOD_NOT_ALLOWED: { trpc: 'METHOD_NOT_SUPPORTED', status: 405 },
  HANDLE_TAKEN: { trpc: 'CONFLICT', status: 409 },
  HANDLE_CHANGE_COOLDOWN: { trpc: 'CONFLICT', status: 409 },
  INSUFFICIENT_BALANCE: { trpc: 'CONFLICT', status: 409 },
  POINTS_LIMIT_REACHED: { trpc: 'CONFLICT', status: 409 },
  DEFINITION_CONFLICT: { trpc: 'CONFLICT', status: 409 },
  WEBHOOK_ENDPOINT_CONFLICT: { trpc: 'CONFLICT', status: 409 },
  PAYLOAD_TOO_LARGE: { trpc: 'PAYLOAD_TOO_LARGE', status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { trpc: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  RATE_LIMITED: { trpc: 'TOO_MANY_REQUESTS', status: 429 },
  INTERNAL: { trpc: 'INTERNAL_SERVER_ERROR', status: 500 },
  UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', status: 503 },
};

/** Errors raised by tRPC itself (before our code runs), in contract terms. */
const FROM_TRPC: Partial<Record<TRPC_ERROR_CODE_KEY, [ErrorCode, string]>> = {
  PARSE_ERROR: ['VALIDATION_FAILED', 'The request body is not valid JSON'],
  BAD_REQUEST: ['VALIDATION_FAILED', 'The request is not valid'],
  NOT_FOUND: ['NOT_FOUND', 'No such operation'],
  METHOD_NOT_SUPPORTED: ['NOT_FOUND', 'No such operation for this HTTP method'],
  UNAUTHORIZED: ['UNAUTHENTICATED', 'A valid bearer token is required'],
  // Unreachable in practice: the body guard (src/http/body.ts) refuses a large body first.
  PAYLOAD_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is too large'],
  UNSUPPORTED_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'],
  TOO_MANY_REQUESTS: ['RATE_LIMITED', 'Too many requests'],
  SERVICE_UNAVAILABLE: ['UNAVAILABLE', 'The service is unavailable right now'],
};

const INTERNAL_MESSAGE = 'Internal server error';

/** The AppError each TRPCError raised by tRPC itself stands for, so every reader gets the same one. */
const fromTRPC = new WeakMap<TRPCError, AppError>();

/** Converts anything thrown anywhere into an AppError with a safe, client-facing message. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    let appError = fromTRPC.get(error);
    if (!appError) {
      appError = trpcToAppError(error);
      fromTRPC.set(error, appError);
    }
    return appError;
  }
  if (isDatabaseUnavailable(error)) return unavailable(error);
  return new AppError('INTERNAL', INTERNAL_MESSAGE, { cause: error });
}

function trpcToAppError(error: TRPCError): AppError {
  const issues = schemaIssues(error.cause);
  if (error.code === 'BAD_REQUEST' && issues) return validationError(issues);
  if (isDatabaseUnavailable(error.cause)) return unavailable(error.cause);
  const known = FROM_TRPC[error.code];
  if (known) return new AppError(known[0], known[1], { cause: error });
  return new AppError('INTERNAL', INTERNAL_MESSAGE, { cause: error });
}

/**
 * The one place that decides what an error leaves in the log: the client sees
 * only "Internal server error", so an INTERNAL error is logged with what was
 * really thrown. Every other code is the client's business and is not logged
 * (the request line records its status).
 */
export function logInternalError(log: Logger, error: AppError): void {
  if (error.code !== 'INTERNAL') return;
  const cause = error.cause instanceof TRPCError ? (error.cause.cause ?? error.cause) : error.cause;
  log.error({ err: cause ?? error }, 'internal error');
}

function unavailable(cause: unknown): AppError {
  return new AppError('UNAVAILABLE', 'The database is unavailable right now; retry shortly', {
    retryAfterSeconds: 1,
    cause,
  });
}

/** The TRPCError a procedure throws for an AppError, so /trpc answers with the right status. */
export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({
    code: ERROR_TABLE[error.code].trpc,
    message: error.message,
    cause: error,
  });
}

/**
 * What a subscription's iterator throws once its stream runs: the TRPCError
 * of the error's contract code, as the procedure's middleware makes of an
 * error thrown while the stream opens (without it tRPC would send any error
 * as INTERNAL_SERVER_ERROR, which its client retries forever). An abort
 * stays one: tRPC ends such a stream quietly.
 */
export function toStreamError(error: unknown): unknown {
  const aborted =
    typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError';
  return aborted ? error : toTRPCError(toAppError(error));
}

export function errorStatus(error: AppError): number {
  return ERROR_TABLE[error.code].status;
}

/** The error envelope (docs/CONTRACT.md, Errors); openapi.json documents every error response with it. */
export const ErrorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      issues: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'Validation problems, one per field' }),
      retryAt: z.iso
        .datetime()
        .optional()
        .meta({
          description:
            'When the same request can succeed (HANDLE_CHANGE_COOLDOWN: when the next handle ' +
            'change is allowed), ISO-8601 UTC',
        }),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });

export type ErrorBody = z.infer<typeof ErrorEnvelopeSchema>;

export function errorBody(error: AppError): ErrorBody {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.issues ? { issues: error.issues } : {}),
      ...(error.retryAt ? { retryAt: error.retryAt.toISOString() } : {}),
    },
  };
}

/** Headers an error response carries on every face. */
export function errorHeaders(error: AppError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.code === 'UNAUTHENTICATED') {
    // RFC 6750 §3: tell the client its bearer token is the problem.
    headers['WWW-Authenticate'] = 'Bearer error="invalid_token"';
  }
  if (error.code === 'INSUFFICIENT_SCOPE' && error.scope !== undefined) {
    // RFC 6750 §3.1: the token is valid but lacks the scope this operation needs.
    headers['WWW-Authenticate'] = `Bearer error="insufficient_scope", scope="${error.scope}"`;
  }
  if (error.allow) headers.Allow = error.allow.join(', ');
  if (error.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  }
  return headers;
}
