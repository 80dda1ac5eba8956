// Remote key sources: a JWKS URL, or the JWKS named by OIDC discovery.
import { createRemoteJWKSet, errors, type JWTVerifyGetKey, type RemoteJWKSet } from 'jose';
import { AppError } from '../app-error.js';
import type { KeySource } from './verifier.js';

/** Timeout for the discovery document and JWKS requests (jose's default as well). */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
/**
 * After a JWKS fetch, a token with an unknown `kid` makes jose fetch again only once
 * this long has passed. jose's default is 30 s; 5 s picks up an unannounced key
 * rotation within seconds while an attacker minting random `kid`s still causes at
 * most one fetch per 5 s per process.
 */
export const JWKS_COOLDOWN_MS = 5_000;
/** A fetched JWKS is used for this long before it is fetched again (jose's default). */
export const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
const RETRY_AFTER_SECONDS = 5;

/** Every asymmetric JWS algorithm a JWKS/OIDC key may use. Never `none`, never HS*. */
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

function keysUnavailable(detail: string, cause?: unknown): AppError {
  return new AppError('UNAVAILABLE', "The identity provider's keys cannot be fetched right now", {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    cause: new Error(detail, { cause }),
  });
}

function remoteJwks(url: URL, timeoutMs: number): RemoteJWKSet {
  return createRemoteJWKSet(url, {
    timeoutDuration: timeoutMs,
    cooldownDuration: JWKS_COOLDOWN_MS,
    cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
  });
}

/**
 * Wraps a remote key lookup so that a failure to obtain keys becomes UNAVAILABLE.
 * jose 6 surfaces such failures as: the fetch's own TypeError ("fetch failed") for
 * network errors, JWKSTimeout, a plain JOSEError for a non-200 response or invalid
 * JSON, JWKSInvalid for JSON that is not a key set, and import errors for unusable
 * keys. Only "no / several matching keys" and unsupported algorithms are about the
 * token and pass through.
 */
function guardRemote(url: () => string, getKey: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await getKey(header, token);
    } catch (error) {
      if (
        error instanceof AppError ||
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported ||
        error instanceof errors.JOSEAlgNotAllowed
      ) {
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw keysUnavailable(`JWKS ${url()}: ${reason}`, error);
    }
  };
}

export function jwksSource(jwksUrl: string, timeoutMs: number): KeySource {
  const jwks = remoteJwks(new URL(jwksUrl), timeoutMs);
  return {
    algorithms: ASYMMETRIC_ALGORITHMS,
    getKey: guardRemote(
      () => jwksUrl,
      (header, token) => jwks(header, token),
    ),
  };
}

export function oidcSource(issuer: string, timeoutMs: number): KeySource {
  let jwks: RemoteJWKSet | undefined;
  let jwksUrl = '(not discovered yet)';
  let pending: Promise<RemoteJWKSet> | undefined;

  // Discovered once; a failed attempt is forgotten so the next request tries again.
  const discovered = (): Promise<RemoteJWKSet> => {
    if (jwks) return Promise.resolve(jwks);
    if (!pending) {
      const attempt = discoverJwksUri(issuer, timeoutMs)
        .then((url) => {
          jwksUrl = url.href;
          jwks = remoteJwks(url, timeoutMs);
          return jwks;
        })
        .finally(() => {
          if (pending === attempt) pending = undefined;
        });
      pending = attempt;
    }
    return pending;
  };

  return {
    algorithms: ASYMMETRIC_ALGORITHMS,
    getKey: guardRemote(
      () => jwksUrl,
      async (header, token) => (await discovered())(header, token),
    ),
  };
}

/** The `jwks_uri` from `<issuer>/.well-known/openid-configuration` (OIDC Discovery §4). */
async function discoverJwksUri(issuer: string, timeoutMs: number): Promise<URL> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const fail = (detail: string, cause?: unknown) =>
    keysUnavailable(`OIDC discovery ${url}: ${detail}`, cause);

  let document: unknown;
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw fail(`expected 200 OK, got HTTP ${response.status}`);
    }
    document = await response.json();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw fail(`request failed (${reason})`, error);
  }

  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw fail('the response is not a JSON object');
  }
  const { issuer: documentIssuer, jwks_uri: jwksUri } = document as Record<string, unknown>;
  if (documentIssuer !== issuer) {
    throw fail(
      `the document's issuer ${JSON.stringify(documentIssuer)} is not AUTH_ISSUER ${JSON.stringify(issuer)}`,
    );
  }
  if (typeof jwksUri !== 'string') throw fail('the document has no "jwks_uri"');
  let parsed: URL;
  try {
    parsed = new URL(jwksUri);
  } catch (error) {
    throw fail(`"jwks_uri" ${JSON.stringify(jwksUri)} is not a URL`, error);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw fail(`"jwks_uri" ${JSON.stringify(jwksUri)} is not an http(s) URL`);
  }
  return parsed;
}
