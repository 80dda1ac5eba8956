/** PostgreSQL SQLSTATE of a failed statement, as both `pg` and our PGlite driver report it. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: name } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && name === constraint;
}

// Connection-level failures: the database is down, restarting or refusing us.
// SQLSTATE classes 08 (connection exception), 53 (insufficient resources),
// 57P01–57P03 (shutdown, cannot connect now) and 57014 (statement timeout).
const UNAVAILABLE_SQLSTATE = /^(08...|53...|57P0[123]|57014)$/;
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
]);

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** True when a query failed because the database could not be reached or was too slow. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))
  ) {
    return true;
  }
  // node-postgres reports a dropped connection, a pool checkout timeout and
  // a query on a client whose connection already failed (e.g. the ROLLBACK
  // after a server restart) without any code; these are its wordings.
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m));
}

/**
 * A deadlock (40P01) or serialization failure (40001): the statement did
 * nothing and the same write may simply be tried again.
 */
export function isDeadlockOrSerialization(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return code === '40P01' || code === '40001';
}
