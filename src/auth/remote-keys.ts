// Remote key sources: a JWKS URL, or the JWKS named by OIDC discovery.
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTVerifyGetKey,
  type RemoteJWKSet,
} from 'jose';
import { AppError } from '../app-error.js';
import type { Logger } from '../logger.js';
import { metrics } from '../metrics.js';
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
/**
 * While the identity provider fails, the next attempt to reach it waits this
 * long: one attempt per 5 s per process whatever the request rate, every
 * request meanwhile a 503 with Retry-After (the time left).
 */
export const FAILURE_BACKOFF_MS = 5_000;

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

const UNAVAILABLE_MESSAGE = "The identity provider's keys cannot be fetched right now";

function keysUnavailable(detail: string, cause?: unknown): AppError {
  return new AppError('UNAVAILABLE', UNAVAILABLE_MESSAGE, {
    retryAfterSeconds: FAILURE_BACKOFF_MS / 1000,
    cause: new Error(detail, { cause }),
  });
}

/** Thrown instead of a request to the identity provider while backing off. */
class BackingOff extends Error {
  constructor(readonly unavailable: AppError) {
    super('backing off from the identity provider');
  }
}

/** Options every remote key source shares. */
export interface RemoteOptions {
  timeoutMs: number;
  /** Where a failed attempt is reported (warn), once per attempt. */
  logger?: Logger | undefined;
}

/**
 * The failure backoff of one key source, shared by every request of the
 * process: after an attempt to reach the identity provider fails, `gate()`
 * refuses further attempts (no request leaves) until FAILURE_BACKOFF_MS have
 * passed; then one request tries again, and a success ends it. Keys already
 * fetched keep verifying tokens meanwhile: only requests that would fetch are
 * refused.
 */
function failureBackoff({ logger }: RemoteOptions) {
  const now = () => Date.now();
  let retryAt = 0;
  let lastFailure: AppError | undefined;
  return {
    /** Before any request to the identity provider. */
    gate(): void {
      const wait = retryAt - now();
      if (wait <= 0 || !lastFailure) return;
      throw new BackingOff(
        new AppError('UNAVAILABLE', UNAVAILABLE_MESSAGE, {
          retryAfterSeconds: Math.ceil(wait / 1000),
          cause: lastFailure.cause,
        }),
      );
    },
    /** After an attempt failed; requests that shared that attempt report it only once. */
    failed(failure: AppError): void {
      if (now() < retryAt) return;
      retryAt = now() + FAILURE_BACKOFF_MS;
      lastFailure = failure;
      logger?.warn(
        { err: failure.cause, retryInSeconds: FAILURE_BACKOFF_MS / 1000 },
        'identity provider keys cannot be fetched; backing off',
      );
    },
  };
}

type Backoff = ReturnType<typeof failureBackoff>;

function remoteJwks(url: URL, timeoutMs: number, backoff: Backoff): RemoteJWKSet {
  return createRemoteJWKSet(url, {
    timeoutDuration: timeoutMs,
    cooldownDuration: JWKS_COOLDOWN_MS,
    cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
    [customFetch]: async (input, init) => {
      backoff.gate();
      const response = await fetch(input, init).catch((error: unknown) => {
        metrics.keyFetch('jwks', 'failed');
        throw error;
      });
      // jose would only say "Expected 200 OK"; the status goes into the logged cause.
      if (response.status !== 200) {
        metrics.keyFetch('jwks', 'failed');
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`expected 200 OK, got HTTP ${response.status}`);
      }
      metrics.keyFetch('jwks', 'ok');
      return response;
    },
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
function guardRemote(
  url: () => string,
  getKey: JWTVerifyGetKey,
  backoff: Backoff,
): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await getKey(header, token);
    } catch (error) {
      if (error instanceof BackingOff) throw error.unavailable;
      if (error instanceof AppError) {
        if (error.code === 'UNAVAILABLE') backoff.failed(error);
        throw error;
      }
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported ||
        error instanceof errors.JOSEAlgNotAllowed
      ) {
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      const unavailable = keysUnavailable(`JWKS ${url()}: ${reason}`, error);
      backoff.failed(unavailable);
      throw unavailable;
    }
  };
}

export function jwksSource(jwksUrl: string, options: RemoteOptions): KeySource {
  const backoff = failureBackoff(options);
  const jwks = remoteJwks(new URL(jwksUrl), options.timeoutMs, backoff);
  return {
    algorithms: ASYMMETRIC_ALGORITHMS,
    getKey: guardRemote(
      () => jwksUrl,
      (header, token) => jwks(header, token),
      backoff,
    ),
  };
}

export function oidcSource(issuer: string, options: RemoteOptions): KeySource {
  const { timeoutMs } = options;
  const backoff = failureBackoff(options);
  let jwks: RemoteJWKSet | undefined;
  let jwksUrl = '(not discovered yet)';
  let pending: Promise<RemoteJWKSet> | undefined;

  // Discovered once; after a failed attempt the backoff decides when the next one may start.
  const discovered = (): Promise<RemoteJWKSet> => {
    if (jwks) return Promise.resolve(jwks);
    if (!pending) {
      backoff.gate();
      const attempt = discoverJwksUri(issuer, timeoutMs)
        .then(
          (url) => {
            metrics.keyFetch('discovery', 'ok');
            return url;
          },
          (error: unknown) => {
            metrics.keyFetch('discovery', 'failed');
            throw error;
          },
        )
        .then((url) => {
          jwksUrl = url.href;
          jwks = remoteJwks(url, timeoutMs, backoff);
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
      backoff,
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
