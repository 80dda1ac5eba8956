import { AppError } from '../app-error.js';
import { metrics, type UserWriter } from '../metrics.js';

/**
 * The one retry rule of a user's guarded write (db/queries/user-write/):
 * a write that finds the state moved plans again from the state it found,
 * after a random back-off that doubles with each lost race, at most
 * WRITE_ATTEMPTS times; then the caller answers 503 with Retry-After.
 * The random wait spreads writers that collided instead of letting them
 * collide again (docs/DECISIONS.md).
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
