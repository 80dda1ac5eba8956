// Which key source the configuration names, and the local ones (a static public key, an HS256 secret).
import { errors, importJWK, type CryptoKey } from 'jose';
import { ConfigError, DEV_ISSUER, type AuthConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { DEV_ALG, loadOrCreateDevKey } from './dev-idp.js';
import { parsePublicKey, type StaticKey } from './public-key.js';
import { DEFAULT_FETCH_TIMEOUT_MS, jwksSource, oidcSource } from './remote-keys.js';
import { verifierFor, type AuthVerifier, type KeySource } from './verifier.js';

/**
 * The verifier for the configured key source (docs/CONTRACT.md, Authentication). Remote sources (OIDC
 * discovery, JWKS URL) fetch nothing here: discovery and the JWKS are fetched on
 * the first `verify`, and after a failure retried by a later one once the failure
 * backoff has passed (remote-keys.ts), so the service starts while the identity
 * provider is down and recovers by itself. Static keys are parsed here, and a
 * bad one throws `ConfigError`.
 */
export async function createAuthVerifier(
  auth: AuthConfig,
  options: { dataDir: string; fetchTimeoutMs?: number; logger?: Logger },
): Promise<AuthVerifier> {
  const remote = {
    timeoutMs: options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
    logger: options.logger,
  };
  const limits = { maxLifetimeSeconds: auth.maxTokenLifetimeSeconds };
  switch (auth.kind) {
    case 'oidc':
      return verifierFor(auth.issuer, auth.audience, oidcSource(auth.issuer, remote), limits);
    case 'jwks':
      return verifierFor(auth.issuer, auth.audience, jwksSource(auth.jwksUrl, remote), limits);
    case 'publicKey':
      return verifierFor(
        auth.issuer,
        auth.audience,
        await staticKeySource(parsePublicKey(auth.publicKey)),
        limits,
      );
    case 'hs256':
      return verifierFor(auth.issuer, auth.audience, hs256Source(auth.secret), limits);
    case 'dev': {
      const { publicJwk } = await loadOrCreateDevKey(options.dataDir);
      return verifierFor(
        DEV_ISSUER,
        auth.audience,
        await staticKeySource({ jwk: publicJwk, algorithms: [DEV_ALG] }),
        limits,
      );
    }
    default: {
      const unknown: never = auth;
      throw new ConfigError(`Unknown auth key source "${(unknown as { kind: string }).kind}"`);
    }
  }
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
