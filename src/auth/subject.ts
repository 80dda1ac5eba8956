/** Longest `sub` (or client id) accepted, in characters (OpenID Connect Core §2: at most 255 ASCII characters). */
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
  return identifierProblem(sub, 'sub', 'subject');
}

/**
 * Why a service token's client id cannot name its client, or undefined when it
 * can: the same rules as a subject, since it keys rate limits and, with the
 * sender's event ids, what a service has recorded.
 */
export function clientIdProblem(clientId: unknown, claim: 'client_id' | 'azp'): string | undefined {
  return identifierProblem(clientId, claim, 'client id');
}

function identifierProblem(value: unknown, claim: string, what: string): string | undefined {
  if (typeof value !== 'string' || value === '')
    return `The token has no ${what} ("${claim}" claim)`;
  if (!value.isWellFormed()) return `The token's "${claim}" claim is not valid Unicode text`;
  if (CONTROL.test(value)) return `The token's "${claim}" claim contains control characters`;
  let length = 0;
  for (const _ of value) {
    length += 1;
    if (length > MAX_SUBJECT_LENGTH) {
      return `The token's "${claim}" claim is longer than ${MAX_SUBJECT_LENGTH} characters`;
    }
  }
  return undefined;
}
