import { AppError } from '../app-error.js';

/** Longest bearer token accepted (docs/CONTRACT.md, Authentication); longer ones are refused before any crypto. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/** RFC 6750 §2.1 `b64token` (RFC 7235 `token68`): base64url/base64 characters, then `=` padding. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
/** `Bearer` (any case), one or more spaces, the rest. `[^ ]+` cannot backtrack into the spaces. */
const CREDENTIALS = /^([^ ]+) +(.*)$/s;

/**
 * The token from an `Authorization: Bearer <token>` header. The scheme is
 * case-insensitive (RFC 6750 / RFC 7235); exactly one token68 token must follow.
 * Tokens are only ever read from this header, never from the query string.
 *
 * Throws `AppError('UNAUTHENTICATED')` for a missing or malformed header and for a
 * token over 8 KiB.
 */
export function parseBearer(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw unauthenticated('A bearer token is required: send "Authorization: Bearer <token>"');
  }
  // Cheap length check first, so nothing below ever looks at a huge header.
  if (header.length > MAX_TOKEN_LENGTH + 'Bearer '.length + 16) throw tooLong();

  const match = CREDENTIALS.exec(header.trim());
  const scheme = match?.[1] ?? header.trim();
  if (scheme.toLowerCase() !== 'bearer') {
    throw unauthenticated(
      'The Authorization header must use the Bearer scheme: "Authorization: Bearer <token>"',
    );
  }
  const token = match?.[2] ?? '';
  if (token === '') {
    throw unauthenticated('The Authorization header has no token after "Bearer"');
  }
  if (token.length > MAX_TOKEN_LENGTH) throw tooLong();
  if (!TOKEN68.test(token)) {
    throw unauthenticated(
      'The Authorization header must carry exactly one bearer token of base64url characters',
    );
  }
  return token;
}

function tooLong(): AppError {
  return unauthenticated(`The bearer token is longer than ${MAX_TOKEN_LENGTH / 1024} KiB`);
}

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message);
}
