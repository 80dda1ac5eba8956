/**
 * The service's one error type. Domain code, auth and HTTP middleware throw
 * `AppError` with a contract code (docs/CONTRACT.md, Errors); `src/error-mapping.ts` is the only
 * place that turns codes into tRPC codes, HTTP statuses and response bodies.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FAN_TOKEN_REQUIRED',
  'INSUFFICIENT_SCOPE',
  'CLIENT_NOT_ALLOWED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'HANDLE_TAKEN',
  'HANDLE_CHANGE_COOLDOWN',
  'INSUFFICIENT_BALANCE',
  'POINTS_LIMIT_REACHED',
  'DEFINITION_CONFLICT',
  'WEBHOOK_ENDPOINT_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One validation problem: `path` is the dotted field path ('' for the whole body). */
export interface Issue {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  issues?: Issue[];
  /** Seconds a client should wait before retrying (RATE_LIMITED, UNAVAILABLE). */
  retryAfterSeconds?: number;
  /** When the same request can succeed (HANDLE_CHANGE_COOLDOWN); sent as `error.retryAt`. */
  retryAt?: Date;
  /** The methods the path does answer (METHOD_NOT_ALLOWED), sent as the `Allow` header. */
  allow?: readonly string[];
  /** The scope the operation needs (INSUFFICIENT_SCOPE), named in `WWW-Authenticate`. */
  scope?: string;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly issues: Issue[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly retryAt: Date | undefined;
  readonly allow: readonly string[] | undefined;
  readonly scope: string | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.retryAt = options.retryAt;
    this.allow = options.allow;
    this.scope = options.scope;
  }
}

/**
 * The request's user id names no user: the account was deleted (on this or
 * another instance) after the id was resolved. protectedProcedure resolves
 * the identity again and retries (a few times), so the identity starts as a new user.
 */
export class UserGoneError extends AppError {
  constructor() {
    super('NOT_FOUND', 'The user does not exist');
    this.name = 'UserGoneError';
  }
}

/** A VALIDATION_FAILED error whose message repeats the first issue, so it reads on its own. */
export function validationError(issues: Issue[]): AppError {
  const first = issues[0];
  const message = first
    ? `${first.path ? `${first.path}: ` : ''}${first.message}`
    : 'The request is not valid';
  return new AppError('VALIDATION_FAILED', message, { issues });
}

interface SchemaIssue {
  code?: string;
  path?: readonly PropertyKey[] | readonly { key: PropertyKey }[];
  message: string;
  keys?: string[];
}

/**
 * Zod (and any Standard Schema) issues as contract issues. An unknown key gets
 * one issue per key whose path names it, so a typo is impossible to miss.
 */
export function schemaIssues(cause: unknown): Issue[] | undefined {
  if (typeof cause !== 'object' || cause === null || !('issues' in cause)) return undefined;
  const raw = (cause as { issues: unknown }).issues;
  if (!Array.isArray(raw)) return undefined;
  return (raw as SchemaIssue[]).flatMap((issue) => {
    const path = (issue.path ?? [])
      .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
      .join('.');
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      return issue.keys.map((key) => ({
        path: path ? `${path}.${key}` : key,
        message: issue.message,
      }));
    }
    return [{ path, message: issue.message }];
  });
}
