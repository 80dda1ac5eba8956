/**
 * The error responses of openapi.json: a real body per contract code, the
 * headers and status texts of each error status, and which codes answer an
 * operation for a fan or for a service.
 */
import { ERROR_CODES, type ErrorCode } from './app-error.js';
import { ERROR_TABLE, type ErrorBody } from './error-mapping.js';
import type { JsonObject } from './openapi-operations.js';
import type { ProcedureInfo } from './trpc/procedures.js';

/** The 400 example of an operation that takes query parameters instead of a body. */
const QUERY_VALIDATION_EXAMPLE: ErrorBody = {
  success: false,
  error: {
    code: 'VALIDATION_FAILED',
    message: 'cursor: Not a cursor this list gave out: pass nextCursor back unchanged',
    issues: [
      {
        path: 'cursor',
        message: 'Not a cursor this list gave out: pass nextCursor back unchanged',
      },
    ],
  },
};

/** A real body per contract code, shown as the example of each error response. */
export const ERROR_EXAMPLES: Record<ErrorCode, ErrorBody> = {
  VALIDATION_FAILED: {
    success: false,
    error: {
      code: 'VALIDATION_FAILED',
      message: 'favouriteTeam: Unknown field "favouriteTeam"',
      issues: [{ path: 'favouriteTeam', message: 'Unknown field "favouriteTeam"' }],
    },
  },
  UNAUTHENTICATED: {
    success: false,
    error: {
      code: 'UNAUTHENTICATED',
      message: 'A bearer token is required: send "Authorization: Bearer <token>"',
    },
  },
  FAN_TOKEN_REQUIRED: {
    success: false,
    error: {
      code: 'FAN_TOKEN_REQUIRED',
      message:
        'This operation acts for a signed-in fan; it cannot be called with a service token ' +
        '(client "checkin-service")',
    },
  },
  INSUFFICIENT_SCOPE: {
    success: false,
    error: {
      code: 'INSUFFICIENT_SCOPE',
      message:
        'This operation needs the "admin" scope; the token of client "checkin-service" has ' +
        '"events:write"',
    },
  },
  CLIENT_NOT_ALLOWED: {
    success: false,
    error: {
      code: 'CLIENT_NOT_ALLOWED',
      message:
        'The client "quiz-service" is not among the services this deployment trusts ' +
        '(SERVICE_CLIENT_IDS)',
    },
  },
  NOT_FOUND: {
    success: false,
    error: {
      code: 'NOT_FOUND',
      message: 'You are not on the leaderboard yet: onboard first (POST /api/user/profile)',
    },
  },
  METHOD_NOT_ALLOWED: {
    success: false,
    error: {
      code: 'METHOD_NOT_ALLOWED',
      message: 'DELETE is not supported on /api/user/profile: use POST',
    },
  },
  HANDLE_TAKEN: {
    success: false,
    error: { code: 'HANDLE_TAKEN', message: 'The handle "ann" is taken' },
  },
  HANDLE_CHANGE_COOLDOWN: {
    success: false,
    error: {
      code: 'HANDLE_CHANGE_COOLDOWN',
      message:
        'You changed your handle recently: the next change is allowed from 2026-12-23T19:00:00.000Z',
      issues: [{ path: 'handle', message: 'Handle changes are on cooldown' }],
      retryAt: '2026-12-23T19:00:00.000Z',
    },
  },
  INSUFFICIENT_BALANCE: {
    success: false,
    error: {
      code: 'INSUFFICIENT_BALANCE',
      message: 'Reversing "checkin-42" would take the fan\'s balance below 0: adjust it first',
    },
  },
  POINTS_LIMIT_REACHED: {
    success: false,
    error: {
      code: 'POINTS_LIMIT_REACHED',
      message:
        "An adjustment of 500000 would take the fan's points past 2,000,000,000, the most a " +
        'balance or a board entry may hold',
    },
  },
  DEFINITION_CONFLICT: {
    success: false,
    error: {
      code: 'DEFINITION_CONFLICT',
      message: 'quest "weekly_checkins" is at version 3, not 2: read it again and resend',
    },
  },
  WEBHOOK_ENDPOINT_CONFLICT: {
    success: false,
    error: {
      code: 'WEBHOOK_ENDPOINT_CONFLICT',
      message:
        'The webhook endpoint 5b1f0c1e-9d8a-4c3e-a7b2-2f6e8d4c1a90 is retired: create a new one',
    },
  },
  PAYLOAD_TOO_LARGE: {
    success: false,
    error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 16 KiB' },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    success: false,
    error: {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type "text/plain" is not supported: send application/json',
    },
  },
  RATE_LIMITED: {
    success: false,
    error: { code: 'RATE_LIMITED', message: 'Too many requests for this user; slow down' },
  },
  INTERNAL: { success: false, error: { code: 'INTERNAL', message: 'Internal server error' } },
  UNAVAILABLE: {
    success: false,
    error: {
      code: 'UNAVAILABLE',
      message: 'The database is unavailable right now; retry shortly',
    },
  },
};

/** The headers an error status answers with, beside the envelope. */
export const ERROR_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: {
    'WWW-Authenticate': {
      description: 'Bearer error="invalid_token" (RFC 6750)',
      required: true,
      schema: { type: 'string' },
    },
  },
  403: {
    'WWW-Authenticate': {
      description:
        'With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" ' +
        '(RFC 6750)',
      schema: { type: 'string' },
    },
  },
  429: {
    'Retry-After': {
      description: 'Seconds to wait before retrying',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  },
  503: {
    'Retry-After': {
      description: 'Seconds to wait before retrying',
      schema: { type: 'integer', minimum: 1 },
    },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

/** Who an authenticated operation is for: a fan (protectedProcedure) or a service (serviceProcedure). */
type Caller = 'fan' | 'service';

export const callerOf = (procedure: ProcedureInfo): Caller =>
  procedure.meta?.serviceScope ? 'service' : 'fan';

/** The 403 codes only one kind of operation answers with: the wrong kind of token, a missing scope. */
const CALLER_CODES: Record<Caller, readonly ErrorCode[]> = {
  fan: ['FAN_TOKEN_REQUIRED'],
  service: ['INSUFFICIENT_SCOPE', 'CLIENT_NOT_ALLOWED'],
};

/** Which contract codes answer with a status, on an operation for `caller`. */
export function codesFor(status: number, caller: Caller): ErrorCode[] {
  const other = CALLER_CODES[caller === 'fan' ? 'service' : 'fan'];
  return ERROR_CODES.filter((code) => ERROR_TABLE[code].status === status && !other.includes(code));
}

/** An error status's response: the envelope, with a real example of each code that answers it. */
export function errorResponse(status: number, hasBody: boolean, caller: Caller): JsonObject {
  const codes = codesFor(status, caller);
  const headers = status === 403 && caller === 'fan' ? undefined : ERROR_HEADERS[status];
  const example = (code: ErrorCode) =>
    code === 'VALIDATION_FAILED' && !hasBody ? QUERY_VALIDATION_EXAMPLE : ERROR_EXAMPLES[code];
  return {
    description: `${codes.join(' or ')}: ${STATUS_TEXT[status] ?? 'Error'}`,
    ...(headers ? { headers } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        examples: Object.fromEntries(
          codes.map((code) => [code, { summary: code, value: example(code) }]),
        ),
      },
    },
  };
}
