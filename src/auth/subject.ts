/** Longest `sub` accepted, in characters (OpenID Connect Core §2: at most 255 ASCII characters). */
export const MAX_SUBJECT_LENGTH = 255;

const CONTROL = /\p{Cc}/u;

/**
 * Why a verified token's `sub` cannot name a user, or undefined when it can.
 * Users are keyed by (issuer, subject) in a text column with a unique index, so
 * the subject must be text PostgreSQL stores exactly as sent: well-formed
 * Unicode (a lone surrogate would be stored as U+FFFD, making "x\uD800" and
 * "x\uDFFF" one account), no control characters (NUL cannot be stored at
 * all), and short enough for the index (an index entry has ~2.7 KB).
 */
export function subjectProblem(sub: unknown): string | undefined {
  if (typeof sub !== 'string' || sub === '') return 'The token has no subject ("sub" claim)';
  if (!sub.isWellFormed()) return 'The token\'s "sub" claim is not valid Unicode text';
  if (CONTROL.test(sub)) return 'The token\'s "sub" claim contains control characters';
  let length = 0;
  for (const _ of sub) {
    length += 1;
    if (length > MAX_SUBJECT_LENGTH) {
      return `The token's "sub" claim is longer than ${MAX_SUBJECT_LENGTH} characters`;
    }
  }
  return undefined;
}
