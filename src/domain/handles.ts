import { AppError } from '../app-error.js';

/**
 * Handle ownership rules: the case-insensitive key, which changes count, and
 * the cooldown. Plain functions; the database enforces ownership.
 */

/**
 * The one key handles are compared by: unique, reserved and claimed under it.
 * Handles are ASCII letters, digits and `_` (src/domain/profile.ts), so this
 * agrees with PostgreSQL's lower() that profiles_handle_lower_key uses.
 */
export function handleKey(handle: string): string {
  return handle.toLowerCase();
}

/** Handle settings from the configuration (HANDLE_CHANGE_COOLDOWN_DAYS, HANDLE_RESERVE_DAYS). */
export interface HandlePolicy {
  /** Days after a change of an existing handle before the next one; 0 turns it off. */
  cooldownDays: number;
  /** Days a given-up handle stays reserved for its previous owner; 0 turns it off. */
  reserveDays: number;
}

/** 409 HANDLE_TAKEN: someone else holds the handle, or it is reserved for someone else. */
export function handleTakenError(handle: string): AppError {
  return new AppError('HANDLE_TAKEN', `The handle "${handle}" is taken`, {
    issues: [{ path: 'handle', message: 'This handle is taken' }],
  });
}

/** 409 HANDLE_CHANGE_COOLDOWN, with the time the next change is allowed. */
export function handleCooldownError(retryAt: Date): AppError {
  return new AppError(
    'HANDLE_CHANGE_COOLDOWN',
    `You changed your handle recently: the next change is allowed from ${retryAt.toISOString()}`,
    { retryAt, issues: [{ path: 'handle', message: 'Handle changes are on cooldown' }] },
  );
}

/**
 * What a write does to the handle:
 * - `none`: unchanged;
 * - `recase`: the same handle in other letter case (no claim moves, no cooldown);
 * - `first`: the first handle (free: no cooldown);
 * - `change`: another handle replaces an existing one (cooldown applies and starts).
 */
export type HandleChange = 'none' | 'recase' | 'first' | 'change';

export function classifyHandleChange(from: string | null, to: string | null): HandleChange {
  if (from === to || to === null) return 'none';
  if (from === null) return 'first';
  return handleKey(from) === handleKey(to) ? 'recase' : 'change';
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * When the next change of an existing handle is allowed, or undefined when it
 * is allowed at `now`. `lastChangeAt` is the time of the user's last `change`.
 */
export function handleChangeBlockedUntil(
  lastChangeAt: Date | undefined,
  cooldownDays: number,
  now: Date,
): Date | undefined {
  if (lastChangeAt === undefined || cooldownDays === 0) return undefined;
  const next = new Date(lastChangeAt.getTime() + cooldownDays * DAY_MS);
  return next > now ? next : undefined;
}
