import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import {
  createRemoteJWKSet,
  errors,
  importJWK,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type JWTVerifyResult,
  type RemoteJWKSet,
} from 'jose';
import { ConfigError, DEV_ISSUER, type AuthConfig } from '../config.js';
import { AppError } from '../app-error.js';
import { MAX_TOKEN_LENGTH } from './bearer.js';
import { DEV_ALG, loadOrCreateDevKey } from './dev-idp.js';

/** Who a verified token speaks for. Users are keyed by (`issuer`, `subject`). */
export interface Principal {
  issuer: string;
  subject: string;
  /** The token's `exp`, epoch seconds. */
  expiresAt: number;
}

/**
 * One string per identity (issuer + subject), for in-process maps keyed by
 * who is calling. JSON keeps the two parts apart whatever characters an
 * opaque `sub` holds.
 */
export function principalKey(principal: Pick<Principal, 'issuer' | 'subject'>): string {
  return JSON.stringify([principal.issuer, principal.subject]);
}

export interface AuthVerifier {
  /**
   * Verifies a bearer token. Rejects with `AppError('UNAUTHENTICATED')` for a
   * malformed, expired or forged token and with `AppError('UNAVAILABLE')` when the
   * identity provider's keys cannot be fetched. It never resolves otherwise.
   */
  verify(token: string): Promise<Principal>;
}

/** Leeway for `exp` and `nbf` (DESIGN §6). */
export const CLOCK_TOLERANCE_SECONDS = 30;
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
const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_ALGORITHMS: Record<string, string> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};
const ED25519_ALGORITHMS = ['EdDSA', 'Ed25519'];

/** What differs between key sources: where keys come from and which algorithms they allow. */
interface KeySource {
  algorithms: string[];
  getKey: JWTVerifyGetKey;
}

/**
 * The verifier for the configured key source (DESIGN §6). Remote sources (OIDC
 * discovery, JWKS URL) fetch nothing here: discovery and the JWKS are fetched on
 * the first `verify`, and retried on a later one if that failed, so the service
 * starts while the identity provider is down. Static keys are parsed here, and a
 * bad one throws `ConfigError`.
 */
export async function createAuthVerifier(
  auth: AuthConfig,
  options: { dataDir: string; fetchTimeoutMs?: number },
): Promise<AuthVerifier> {
  const timeoutMs = options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  switch (auth.kind) {
    case 'oidc':
      return tokenVerifier(auth.issuer, auth.audience, oidcSource(auth.issuer, timeoutMs));
    case 'jwks':
      return tokenVerifier(auth.issuer, auth.audience, jwksSource(auth.jwksUrl, timeoutMs));
    case 'publicKey':
      return tokenVerifier(
        auth.issuer,
        auth.audience,
        await staticKeySource(parsePublicKey(auth.publicKey)),
      );
    case 'hs256':
      return tokenVerifier(auth.issuer, auth.audience, hs256Source(auth.secret));
    case 'dev': {
      const { publicJwk } = await loadOrCreateDevKey(options.dataDir);
      return tokenVerifier(
        DEV_ISSUER,
        auth.audience,
        await staticKeySource({ jwk: publicJwk, algorithms: [DEV_ALG] }),
      );
    }
    default: {
      const unknown: never = auth;
      throw new ConfigError(`Unknown auth key source "${(unknown as { kind: string }).kind}"`);
    }
  }
}

// ---------------------------------------------------------------------------
// The one implementation of the checks, shared by every key source.

function tokenVerifier(
  issuer: string,
  audience: readonly string[],
  source: KeySource,
): AuthVerifier {
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
      const { iss, sub, exp } = payload;
      if (typeof sub !== 'string' || sub === '') {
        throw unauthenticated('The token has no subject ("sub" claim)');
      }
      // jose has checked both; this only makes the types (and any regression) explicit.
      if (iss !== issuer || typeof exp !== 'number') {
        throw unauthenticated('The token could not be verified');
      }
      return { issuer: iss, subject: sub, expiresAt: exp };
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

function keysUnavailable(detail: string, cause?: unknown): AppError {
  return new AppError('UNAVAILABLE', "The identity provider's keys cannot be fetched right now", {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    cause: new Error(detail, { cause }),
  });
}

// ---------------------------------------------------------------------------
// Remote key sources: a JWKS URL, or the JWKS named by OIDC discovery.

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

function jwksSource(jwksUrl: string, timeoutMs: number): KeySource {
  const jwks = remoteJwks(new URL(jwksUrl), timeoutMs);
  return {
    algorithms: ASYMMETRIC_ALGORITHMS,
    getKey: guardRemote(
      () => jwksUrl,
      (header, token) => jwks(header, token),
    ),
  };
}

function oidcSource(issuer: string, timeoutMs: number): KeySource {
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

// ---------------------------------------------------------------------------
// Local key sources: a static public key (also the dev key) and an HS256 secret.

interface StaticKey {
  jwk: JWK;
  algorithms: string[];
}

async function staticKeySource({ jwk, algorithms }: StaticKey): Promise<KeySource> {
  const keys = new Map<string, CryptoKey>();
  for (const alg of algorithms) {
    const key = await importJWK(jwk, alg);
    if (key instanceof Uint8Array) throw new ConfigError('The public key is not an asymmetric key');
    keys.set(alg, key);
  }
  return {
    algorithms,
    getKey: async (header) => {
      const key = keys.get(header.alg);
      if (!key)
        throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
      return key;
    },
  };
}

function hs256Source(secret: string): KeySource {
  const bytes = new TextEncoder().encode(secret);
  return { algorithms: ['HS256'], getKey: async () => bytes };
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

/**
 * AUTH_PUBLIC_KEY: a PEM public key (SPKI; PKCS#1 RSA and X.509 certificates work
 * too) or a JWK JSON object (a JWK set with exactly one key is accepted). The
 * allowed algorithms follow from the key: RSA → RS256-512 and PS256-512, EC → ES256,
 * ES384 or ES512 by curve, Ed25519 → EdDSA; a JWK's own "alg" narrows that to one.
 */
function parsePublicKey(text: string): StaticKey {
  let source = text.trim();
  // Env files often carry a PEM on one line with literal "\n".
  if (!source.includes('\n') && source.includes('\\n')) source = source.replace(/\\n/g, '\n');

  let keyObject: KeyObject;
  let declaredAlg: string | undefined;
  if (source.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(source);
    } catch {
      throw new ConfigError('AUTH_PUBLIC_KEY starts with "{" but is not valid JSON');
    }
    let jwk = parsed as Record<string, unknown>;
    if (Array.isArray(jwk.keys)) {
      if (jwk.keys.length !== 1) {
        throw new ConfigError(
          'AUTH_PUBLIC_KEY is a JWK set with several keys; give one key, or use AUTH_JWKS_URL',
        );
      }
      jwk = jwk.keys[0] as Record<string, unknown>;
    }
    if (typeof jwk !== 'object' || jwk === null || typeof jwk.kty !== 'string') {
      throw new ConfigError('AUTH_PUBLIC_KEY JSON must be a JWK object with a "kty" member');
    }
    if (jwk.kty === 'oct') {
      throw new ConfigError(
        'AUTH_PUBLIC_KEY is a symmetric (oct) key; use AUTH_HS256_SECRET for shared secrets',
      );
    }
    if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk)) {
      throw new ConfigError(
        'AUTH_PUBLIC_KEY contains private key material; configure only the public key',
      );
    }
    declaredAlg = typeof jwk.alg === 'string' ? jwk.alg : undefined;
    try {
      keyObject = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch (error) {
      throw new ConfigError(`AUTH_PUBLIC_KEY is not a usable JWK: ${(error as Error).message}`);
    }
  } else if (source.startsWith('-----BEGIN')) {
    if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(source)) {
      throw new ConfigError(
        'AUTH_PUBLIC_KEY is a private key; configure only the public key (-----BEGIN PUBLIC KEY-----)',
      );
    }
    try {
      keyObject = createPublicKey(source);
    } catch (error) {
      throw new ConfigError(`AUTH_PUBLIC_KEY is not a usable PEM key: ${(error as Error).message}`);
    }
  } else {
    throw new ConfigError(
      'AUTH_PUBLIC_KEY must be a PEM public key ("-----BEGIN PUBLIC KEY-----") or a JWK JSON object',
    );
  }

  let algorithms = algorithmsFor(keyObject);
  if (declaredAlg !== undefined) {
    if (!algorithms.includes(declaredAlg)) {
      throw new ConfigError(
        `AUTH_PUBLIC_KEY says "alg": "${declaredAlg}", which does not fit its ` +
          `${keyObject.asymmetricKeyType ?? 'unknown'} key (allowed: ${algorithms.join(', ')})`,
      );
    }
    algorithms = [declaredAlg];
  }
  return { jwk: keyObject.export({ format: 'jwk' }) as JWK, algorithms };
}

function algorithmsFor(key: KeyObject): string[] {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'rsa') {
    if ((details.modulusLength ?? 0) < 2048) {
      throw new ConfigError(
        `AUTH_PUBLIC_KEY is a ${details.modulusLength ?? '?'}-bit RSA key; at least 2048 bits are required`,
      );
    }
    return [...RSA_ALGORITHMS];
  }
  if (type === 'ec') {
    const alg = EC_ALGORITHMS[details.namedCurve ?? ''];
    if (!alg) {
      throw new ConfigError(
        `AUTH_PUBLIC_KEY uses the EC curve ${details.namedCurve ?? '?'}; only P-256, P-384 and P-521 are supported`,
      );
    }
    return [alg];
  }
  if (type === 'ed25519') return [...ED25519_ALGORITHMS];
  throw new ConfigError(
    `AUTH_PUBLIC_KEY is a ${type ?? 'unknown'} key, which is not supported; use an RSA (2048 bits or more), ` +
      'EC P-256/P-384/P-521 or Ed25519 public key',
  );
}
