// Token verification: the checks every key source shares, and the errors a client sees.
import {
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type JWTVerifyResult,
} from 'jose';
import { AppError } from '../app-error.js';
import { MAX_TOKEN_LENGTH } from './bearer.js';
import { principalFromClaims, type Principal } from './principal.js';
import { subjectProblem } from './subject.js';

export interface AuthVerifier {
  /**
   * Verifies a bearer token and tells a fan's from a service's
   * (principalFromClaims). Rejects with `AppError('UNAUTHENTICATED')` for a
   * malformed, expired or forged token, or one whose scopes or client cannot be read, and with `AppError('UNAVAILABLE')` when the
   * identity provider's keys cannot be fetched. It never resolves otherwise.
   */
  verify(token: string): Promise<Principal>;
}

/** Leeway for `exp` and `nbf` (docs/CONTRACT.md, Authentication). */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** The longest a token may be valid for, by default (AUTH_MAX_TOKEN_LIFETIME_SECONDS). */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 86_400;

/**
 * Seconds a token is valid for: from the earlier of its `iat` and now to its
 * `exp`. Without `iat` (optional in RFC 7519) that is what is left of it, so
 * neither a missing nor a future `iat` lets a token outlive the limit.
 */
export function tokenLifetimeSeconds(
  claims: { exp: number; iat?: number | undefined },
  nowSeconds: number,
): number {
  const from = claims.iat === undefined ? nowSeconds : Math.min(claims.iat, nowSeconds);
  return claims.exp - from;
}

/** What differs between key sources: where keys come from and which algorithms they allow. */
export interface KeySource {
  algorithms: string[];
  getKey: JWTVerifyGetKey;
}

/**
 * The one implementation of the checks, shared by every key source: signature
 * (algorithms limited to the source's), issuer, audience, `exp`/`nbf` with
 * leeway, a lifetime of at most `maxLifetimeSeconds` (tokenLifetimeSeconds),
 * and a non-empty `sub`; then which kind of caller the token is for.
 */
export function verifierFor(
  issuer: string,
  audience: readonly string[],
  source: KeySource,
  limits: { maxLifetimeSeconds?: number | undefined } = {},
): AuthVerifier {
  const maxLifetime = limits.maxLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
  const options: JWTVerifyOptions = {
    issuer,
    audience: audience.length > 0 ? [...audience] : undefined,
    algorithms: [...source.algorithms],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp', 'sub'],
  };

  return {
    async verify(token: string): Promise<Principal> {
      let payload: JWTPayload;
      try {
        if (typeof token !== 'string' || token === '') {
          throw unauthenticated('A bearer token is required');
        }
        if (token.length > MAX_TOKEN_LENGTH) {
          throw unauthenticated(`The bearer token is longer than ${MAX_TOKEN_LENGTH / 1024} KiB`);
        }
        ({ payload } = await verifyJwt(token, source.getKey, options));
      } catch (error) {
        throw toAuthError(error);
      }
      const { iss, sub, exp, iat } = payload;
      // jose has checked exp (required) and iat (when present) are numbers.
      if (
        typeof exp === 'number' &&
        tokenLifetimeSeconds({ exp, iat }, Math.floor(Date.now() / 1000)) >
          maxLifetime + CLOCK_TOLERANCE_SECONDS
      ) {
        throw unauthenticated(
          `The token is valid for longer than this service accepts (at most ${maxLifetime} s from "iat" to "exp")`,
        );
      }
      const problem = subjectProblem(sub);
      if (problem !== undefined || typeof sub !== 'string') {
        throw unauthenticated(problem ?? 'The token has no subject ("sub" claim)');
      }
      // jose has checked both; this only makes the types (and any regression) explicit.
      if (iss !== issuer || typeof exp !== 'number') {
        throw unauthenticated('The token could not be verified');
      }
      return principalFromClaims(payload, { issuer: iss, subject: sub, expiresAt: exp });
    },
  };
}

/**
 * `jwtVerify`, plus the step jose 6 leaves to the caller: when a token without a
 * `kid` matches several keys of the JWKS, try each (jose's documented pattern).
 */
async function verifyJwt(
  token: string,
  getKey: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<JWTVerifyResult> {
  try {
    return await jwtVerify(token, getKey, options);
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error) {
      try {
        return await jwtVerify(token, key, options);
      } catch (inner) {
        if (inner instanceof errors.JWSSignatureVerificationFailed) continue;
        throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** Anything thrown while verifying, as the AppError the client sees. Never a pass. */
function toAuthError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const message = (text: string) => unauthenticated(text, error);
  if (error instanceof errors.JWTExpired) return message('The token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return message(claimMessage(error.claim, error.reason));
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return message('The token signature is not valid');
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return message('The token is signed with an algorithm this service does not accept');
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return message('The token was signed with a key the identity provider does not publish');
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return message('The token is malformed: expected a signed JWT');
  }
  if (error instanceof errors.JOSENotSupported) {
    return message('The token uses an algorithm or key type this service does not support');
  }
  // Unknown failures (e.g. a key unusable for the token's algorithm) fail closed.
  return message('The token could not be verified');
}

function claimMessage(claim: string, reason: string): string {
  if (reason === 'missing') {
    const names: Record<string, string> = {
      iss: 'issuer',
      aud: 'audience',
      sub: 'subject',
      exp: 'expiry time',
    };
    return `The token has no ${names[claim] ?? 'value for the'} ("${claim}" claim)`;
  }
  if (reason === 'invalid') return `The token's "${claim}" claim is not valid`;
  switch (claim) {
    case 'iss':
      return 'The token was not issued by the expected issuer';
    case 'aud':
      return 'The token is not intended for this service (audience mismatch)';
    case 'nbf':
      return 'The token is not valid yet ("nbf" is in the future)';
    default:
      return `The token's "${claim}" claim is not valid`;
  }
}

function unauthenticated(message: string, cause?: unknown): AppError {
  return new AppError('UNAUTHENTICATED', message, { cause });
}
