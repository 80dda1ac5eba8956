import { sql, type Kysely } from 'kysely';
import { isDatabaseUnavailable } from './queries/errors.js';
import type { Database } from './schema.js';

/** One failed attempt to reach the database at start, as the caller logs it. */
export interface WaitAttempt {
  attempt: number;
  /** The failure: a SQLSTATE (`57P03`) or an errno (`ECONNREFUSED`), else the message. */
  reason: string;
  error: unknown;
  /** Since the first attempt. */
  waitedMs: number;
  /** Until the next attempt; undefined when this was the last one. */
  retryInMs: number | undefined;
}

export class DatabaseWaitError extends Error {
  override name = 'DatabaseWaitError';
}

/** The first retry after 250 ms, then twice as long each time, at most 5 s. */
export function waitDelayMs(attempt: number): number {
  return Math.min(250 * 2 ** (attempt - 1), 5_000);
}

function reasonOf(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return code;
  return typeof message === 'string' ? message : String(error);
}

/**
 * Resolves once the database answers a query, trying again with backoff
 * (waitDelayMs) while it cannot be reached or is not accepting connections yet
 * (ECONNREFUSED, `the database system is starting up`: isDatabaseUnavailable)
 * for up to `timeoutMs` (0: one attempt). Each failed attempt is reported to
 * `onAttempt`. Rejects at once on any other error (a wrong password, a
 * database that does not exist: waiting would not help), and with a
 * DatabaseWaitError naming the last failure when the time is up.
 */
export async function waitForDatabase(
  db: Kysely<Database>,
  options: { timeoutMs: number; onAttempt?: (attempt: WaitAttempt) => void },
): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const waitedMs = Date.now() - started;
      const left = options.timeoutMs - waitedMs;
      const retryInMs = left > 0 ? Math.min(waitDelayMs(attempt), left) : undefined;
      options.onAttempt?.({ attempt, reason: reasonOf(error), error, waitedMs, retryInMs });
      if (retryInMs === undefined) {
        throw new DatabaseWaitError(
          `the database did not answer within ${options.timeoutMs} ms ` +
            `(${attempt} attempt${attempt === 1 ? '' : 's'}; last: ${reasonOf(error)}); ` +
            'raise DATABASE_STARTUP_TIMEOUT_MS to wait longer',
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}
