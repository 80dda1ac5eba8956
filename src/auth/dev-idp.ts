import { randomBytes } from 'node:crypto';
import { mkdir, link, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  SignJWT,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';
import { DEV_ISSUER } from '../config.js';

/**
 * The local development identity provider (docs/CONTRACT.md, Authentication): an ES256 key pair kept in
 * `DATA_DIR/dev-idp/key.json`, used when no AUTH_* variable is set outside
 * production. `npm run token -- <subject>` signs with it; the service verifies
 * with its public half.
 */

export const DEV_ALG = 'ES256';
/** Default lifetime of a development token: 12 hours. */
export const DEV_TOKEN_TTL_SECONDS = 12 * 60 * 60;

export interface DevKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  kid: string;
}

/** Where the development key lives. */
export function devKeyPath(dataDir: string): string {
  return path.join(dataDir, 'dev-idp', 'key.json');
}

/**
 * Loads the development key pair, creating it on first use. Safe when several
 * processes (the service and `npm run token`) race to create it: each writes a
 * private temp file and hard-links it into place, which fails if another process
 * won, and then everyone reads the one file that exists.
 */
export async function loadOrCreateDevKey(dataDir: string): Promise<DevKey> {
  const file = devKeyPath(dataDir);
  const existing = await readKeyFile(file);
  if (existing) return existing;

  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const { privateKey } = await generateKeyPair(DEV_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicPart(jwk));
  const stored: JWK = { ...publicPart(jwk), d: jwk.d, kid, alg: DEV_ALG, use: 'sig' };
  const contents = `${JSON.stringify(stored, null, 2)}\n`;

  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, contents, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, file);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') {
      // Another process created it first; use theirs (read below).
    } else if (['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV'].includes(errorCode(error) ?? '')) {
      // No hard links on this filesystem: exclusive create (readers retry a partial file).
      await writeFile(file, contents, { mode: 0o600, flag: 'wx' }).catch((inner: unknown) => {
        if (errorCode(inner) !== 'EEXIST') throw inner;
      });
    } else {
      throw error;
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }

  const created = await readKeyFile(file);
  if (!created) throw new Error(`The development key ${file} could not be created`);
  return created;
}

/**
 * A development token for `subject`: `iss` is DEV_ISSUER, `exp` 12 hours from now
 * unless `ttlSeconds` says otherwise, and the key's `kid` in the header. With
 * `scopes`, a service's client-credentials token as RFC 9068 shapes it: the
 * client id `subject` in both `sub` and `client_id`, and `scope` the scopes
 * joined by spaces.
 */
export async function signDevToken(
  dataDir: string,
  subject: string,
  options: { ttlSeconds?: number; scopes?: readonly string[] } = {},
): Promise<string> {
  if (typeof subject !== 'string' || subject.trim() === '') {
    throw new TypeError('A development token needs a non-empty subject');
  }
  const ttl = options.ttlSeconds ?? DEV_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl <= 0) {
    throw new TypeError('ttlSeconds must be a positive whole number of seconds');
  }
  const { privateKey, kid } = await loadOrCreateDevKey(dataDir);
  const now = Math.floor(Date.now() / 1000);
  const claims = options.scopes ? { client_id: subject, scope: options.scopes.join(' ') } : {};
  return new SignJWT(claims)
    .setProtectedHeader({ alg: DEV_ALG, kid, typ: 'JWT' })
    .setIssuer(DEV_ISSUER)
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .sign(privateKey);
}

/** Reads the key file; undefined when it does not exist yet. */
async function readKeyFile(file: string): Promise<DevKey | undefined> {
  // A racing process without hard-link support may still be writing: retry briefly.
  for (let attempt = 0; ; attempt += 1) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return await parseKey(text);
    } catch (error) {
      if (attempt >= 10) {
        throw new Error(
          `The development key ${file} is not a valid ES256 private JWK; delete it and a new one ` +
            'will be created (tokens signed with the old key stop working).',
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function parseKey(text: string): Promise<DevKey> {
  const jwk = JSON.parse(text) as JWK;
  if (
    jwk.kty !== 'EC' ||
    jwk.crv !== 'P-256' ||
    typeof jwk.d !== 'string' ||
    typeof jwk.kid !== 'string'
  ) {
    throw new Error('not an ES256 private JWK with a kid');
  }
  const privateKey = await importJWK(jwk, DEV_ALG);
  if (privateKey instanceof Uint8Array) throw new Error('not an asymmetric key');
  const publicJwk: JWK = { ...publicPart(jwk), kid: jwk.kid, alg: DEV_ALG, use: 'sig' };
  return { privateKey, publicJwk, kid: jwk.kid };
}

function publicPart(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}
