// AUTH_PUBLIC_KEY: which key it is and which algorithms it may sign with.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { ConfigError } from '../config.js';

/** A key given in configuration (AUTH_PUBLIC_KEY, or the development key) and the algorithms it may sign with. */
export interface StaticKey {
  jwk: JWK;
  algorithms: string[];
}

const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_ALGORITHMS: Record<string, string> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};
const ED25519_ALGORITHMS = ['EdDSA', 'Ed25519'];

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

/**
 * AUTH_PUBLIC_KEY: a PEM public key (SPKI; PKCS#1 RSA and X.509 certificates work
 * too) or a JWK JSON object (a JWK set with exactly one key is accepted). The
 * allowed algorithms follow from the key: RSA → RS256-512 and PS256-512, EC → ES256,
 * ES384 or ES512 by curve, Ed25519 → EdDSA; a JWK's own "alg" narrows that to one.
 */
export function parsePublicKey(text: string): StaticKey {
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
