import { textFault } from '../domain/text.js';

/** Longest `sub` (or client id) accepted, in characters (OpenID Connect Core §2: at most 255 ASCII characters). */
export const MAX_SUBJECT_LENGTH = 255;

/**
 * Why a verified token's `sub` cannot name a user, or undefined when it can.
 * Users are keyed by (issuer, subject) in a text column with a unique index, so
 * the subject must be text PostgreSQL stores exactly as sent: well-formed
 * Unicode (a lone surrogate would be stored as U+FFFD, making "x\uD800" and
 * "x\uDFFF" one account), no control characters (NUL cannot be stored at
 * all), no bidirectional controls or invisible characters (two subjects
 * that look alike to an admin must be alike: the text rule of every stored
 * text, src/domain/text.ts, without its trimming, since a subject is kept
 * exactly as sent), and short enough for the index (an index entry has
 * ~2.7 KB).
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

/**
 * Why a subject named in an event from another service (docs/ACTIVITY.md)
 * cannot name a fan: the rules of a token's `sub`, since it keys the same users.
 */
export function eventSubjectProblem(subject: unknown): string | undefined {
  switch (identifierFault(subject)) {
    case 'empty':
      return 'Must be a non-empty string: the fan’s `sub` at the identity provider';
    case 'unicode':
      return 'Must be valid Unicode text';
    case 'control':
      return 'Must not contain control characters';
    case 'bidi':
      return 'Must not contain bidirectional control characters';
    case 'invisible':
      return 'Must not contain invisible characters';
    case 'long':
      return `Must be at most ${MAX_SUBJECT_LENGTH} characters`;
    default:
      return undefined;
  }
}

function identifierProblem(value: unknown, claim: string, what: string): string | undefined {
  switch (identifierFault(value)) {
    case 'empty':
      return `The token has no ${what} ("${claim}" claim)`;
    case 'unicode':
      return `The token's "${claim}" claim is not valid Unicode text`;
    case 'control':
      return `The token's "${claim}" claim contains control characters`;
    case 'bidi':
      return `The token's "${claim}" claim contains bidirectional control characters`;
    case 'invisible':
      return `The token's "${claim}" claim contains invisible characters`;
    case 'long':
      return `The token's "${claim}" claim is longer than ${MAX_SUBJECT_LENGTH} characters`;
    default:
      return undefined;
  }
}

/** The one rule for identifiers that key users and clients. */
function identifierFault(
  value: unknown,
): 'empty' | 'unicode' | 'control' | 'bidi' | 'invisible' | 'long' | undefined {
  if (typeof value !== 'string' || value === '') return 'empty';
  if (!value.isWellFormed()) return 'unicode';
  const fault = textFault(value);
  if (fault) return fault.kind;
  let length = 0;
  for (const _ of value) {
    length += 1;
    if (length > MAX_SUBJECT_LENGTH) return 'long';
  }
  return undefined;
}
