import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { CompiledStatements } from '../../db/statements.js';
import {
  applyUserWrite,
  type UserWritePlan,
  type UserWriteResult,
} from '../../db/queries/user-write/index.js';
import { AppError } from '../app-error.js';
import { metrics, type UserWriter } from '../metrics.js';
import type { UserStateCache } from './state-cache.js';

/**
 * The one retry rule of a user's guarded write (db/queries/user-write/):
 * a write that finds the state moved plans again from the state it found,
 * after a random back-off that doubles with each lost race, at most
 * WRITE_ATTEMPTS times; then the caller answers 503 with Retry-After.
 * The random wait spreads writers that collided instead of letting them
 * collide again (docs/decisions/0013-optimistic-writes.md).
 */
export const WRITE_ATTEMPTS = 8;

/** Waits a random time below 2^`lost` ms before the next try. */
export function backOff(lost: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** lost));
}

/** The answer when every try lost the race (counted by writer). */
export function tooManyWrites(writer: UserWriter): AppError {
  metrics.userWriteExhausted(writer);
  return new AppError('UNAVAILABLE', 'Too many simultaneous writes to one fan; retry shortly', {
    retryAfterSeconds: 1,
  });
}

/**
 * One try of a write made for a fan by someone else (a service's events or
 * reversal, an admin's adjustment or ban), counted by writer. Once written,
 * this instance forgets the fan's cached state (the planner of such a write
 * does not keep the state after it) and is told the fan was written
 * (read-your-writes and the shared first pages: AppDeps.wrote).
 */
export async function applyFanWrite(
  deps: {
    db: Kysely<Database>;
    statements: CompiledStatements;
    userStates: Pick<UserStateCache, 'delete'>;
    wrote?: ((userId: string) => void) | undefined;
  },
  writer: UserWriter,
  write: UserWritePlan,
): Promise<UserWriteResult> {
  const result = await applyUserWrite(deps.db, deps.statements, write);
  metrics.userWriteAttempt(writer, result.outcome);
  if (result.outcome === 'written') {
    deps.userStates.delete(write.userId);
    deps.wrote?.(write.userId);
  }
  return result;
}
