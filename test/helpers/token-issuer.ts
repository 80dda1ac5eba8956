import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SignJWT,
  calculateJwkThumbprint,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';

/**
 * A real identity provider for tests: a key pair, served over HTTP on
 * 127.0.0.1 (ephemeral port) as an OIDC discovery document and a JWKS, and a
 * `sign` that issues tokens with it. Nothing in jose or fetch is mocked.
 */

export type IssuerAlg = 'ES256' | 'RS256';

/**
 * How the issuer misbehaves while unavailable:
 * - `status`: HTTP 503 (default)
 * - `server-error`: HTTP 500
 * - `reset`: the connection is destroyed without a response (fetch rejects)
 * - `hang`: no response until it is available again or stopped (client timeouts)
 * - `garbage`: 200 with an HTML body (not JSON)
 * - `not-a-jwks`: 200 with JSON that is neither a JWKS nor a discovery document
 */
export type Outage = 'status' | 'server-error' | 'reset' | 'hang' | 'garbage' | 'not-a-jwks';

/**
 * Claims for `sign`; defaults are `iss` = the issuer, `iat` = now, `exp` = now + 5 min.
 * Any other claim may be added; a claim given as `undefined` is left out.
 */
export type SignClaims = Partial<{
  aud: string | string[];
  exp: number;
  nbf: number;
  iat: number;
  iss: string;
}> & { [claim: string]: unknown };

export interface SignHeader {
  /** Defaults to the current key's kid; `null` leaves the header without a kid. */
  kid?: string | null;
  /** Defaults to the issuer's alg; an RS256 issuer can also sign PS256/384/512, RS384/512. */
  alg?: string;
}

export interface TokenIssuer {
  /** Base URL, e.g. http://127.0.0.1:54321; also the `iss` of its tokens. */
  readonly issuer: string;
  readonly discoveryUrl: string;
  readonly jwksUrl: string;
  readonly alg: IssuerAlg;
  /** The current signing key (these change on `rotate`). */
  readonly kid: string;
  readonly publicKeyPem: string;
  readonly publicJwk: JWK;
  /** JWKS requests received (including ones refused while unavailable). */
  readonly requests: number;
  /** Discovery document requests received (including refused ones). */
  readonly discoveryRequests: number;
  /** A token for `subject` (`null`: no `sub` claim) signed with the current key. */
  sign(subject: string | null, claims?: SignClaims, header?: SignHeader): Promise<string>;
  /**
   * A service's client-credentials token (RFC 9068): `sub` and `client_id` the
   * client id, `scope` the scopes joined by spaces. `claims` may add or, given
   * as `undefined`, leave out any claim (e.g. `client_id` for an `azp`-only token).
   */
  signService(
    clientId: string,
    scopes: string | readonly string[],
    claims?: SignClaims,
    header?: SignHeader,
  ): Promise<string>;
  /**
   * A new key pair with a new kid becomes the signing key. By default the JWKS then
   * serves only the new key; `keepPrevious` serves both (new key first).
   */
  rotate(options?: { keepPrevious?: boolean }): Promise<void>;
  /** While down, both endpoints fail in the way `how` describes. */
  setAvailable(up: boolean, how?: Outage): void;
  stop(): Promise<void>;
}

interface IssuerKey {
  kid: string;
  alg: IssuerAlg;
  privateJwk: JWK;
  publicJwk: JWK;
  publicKeyPem: string;
  signingKeys: Map<string, Promise<CryptoKey>>;
}

async function newKey(alg: IssuerAlg): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, {
    extractable: true,
    modulusLength: 2048,
  });
  const exported = await exportJWK(publicKey);
  const bare: JWK =
    exported.kty === 'RSA'
      ? { kty: 'RSA', n: exported.n, e: exported.e }
      : { kty: exported.kty, crv: exported.crv, x: exported.x, y: exported.y };
  const kid = await calculateJwkThumbprint(bare);
  const { key_ops: _ops, ext: _ext, ...privateJwk } = await exportJWK(privateKey);
  return {
    kid,
    alg,
    privateJwk,
    publicJwk: { ...bare, kid, alg, use: 'sig' },
    publicKeyPem: await exportSPKI(publicKey),
    signingKeys: new Map(),
  };
}

function signingKey(key: IssuerKey, alg: string): Promise<CryptoKey> {
  let pending = key.signingKeys.get(alg);
  if (!pending) {
    pending = importJWK(key.privateJwk, alg).then((imported) => {
      if (imported instanceof Uint8Array) throw new Error('expected an asymmetric key');
      return imported;
    });
    key.signingKeys.set(alg, pending);
  }
  return pending;
}

/**
 * `audience`: the `aud` every token carries unless `sign` is given another (a
 * production-mode service requires one, AUTH_AUDIENCE).
 */
export async function startTokenIssuer(
  options: { alg?: IssuerAlg; audience?: string } = {},
): Promise<TokenIssuer> {
  const alg = options.alg ?? 'ES256';
  let current = await newKey(alg);
  let published: IssuerKey[] = [current];
  let available = true;
  let outage: Outage = 'status';
  let jwksRequests = 0;
  let discoveryRequests = 0;
  const hanging = new Set<ServerResponse>();
  let base = '';

  const sendJson = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const isJwks = path === '/jwks.json';
    const isDiscovery = path === '/.well-known/openid-configuration';
    if (!isJwks && !isDiscovery) return sendJson(res, 404, { error: 'not_found' });
    if (isJwks) jwksRequests += 1;
    else discoveryRequests += 1;

    if (!available) {
      switch (outage) {
        case 'status':
          return sendJson(res, 503, { error: 'temporarily_unavailable' });
        case 'server-error':
          return sendJson(res, 500, { error: 'server_error' });
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'garbage':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html><body>Bad gateway</body></html>');
          return;
        case 'not-a-jwks':
          return sendJson(res, 200, { keys: 'none', hello: 'world' });
      }
    }
    if (isJwks) return sendJson(res, 200, { keys: published.map((key) => key.publicJwk) });
    return sendJson(res, 200, {
      issuer: base,
      jwks_uri: `${base}/jwks.json`,
      id_token_signing_alg_values_supported: [alg],
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const releaseHanging = () => {
    for (const res of hanging) res.destroy();
    hanging.clear();
  };

  const sign: TokenIssuer['sign'] = async (subject, claims = {}, header = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = { iss: base, iat: now, exp: now + 300 };
    if (options.audience !== undefined) payload.aud = options.audience;
    if (subject !== null) payload.sub = subject;
    Object.assign(payload, claims);
    for (const [name, value] of Object.entries(payload)) {
      if (value === undefined) delete payload[name];
    }
    const signingAlg = header.alg ?? current.alg;
    const kid = header.kid === undefined ? current.kid : header.kid;
    return new SignJWT(payload)
      .setProtectedHeader({ alg: signingAlg, typ: 'JWT', ...(kid === null ? {} : { kid }) })
      .sign(await signingKey(current, signingAlg));
  };

  return {
    issuer: base,
    discoveryUrl: `${base}/.well-known/openid-configuration`,
    jwksUrl: `${base}/jwks.json`,
    alg,
    get kid() {
      return current.kid;
    },
    get publicKeyPem() {
      return current.publicKeyPem;
    },
    get publicJwk() {
      return { ...current.publicJwk };
    },
    get requests() {
      return jwksRequests;
    },
    get discoveryRequests() {
      return discoveryRequests;
    },
    sign,
    signService(clientId, scopes, claims = {}, header = {}) {
      const { client_id, scope } = serviceClaims(clientId, scopes);
      return sign(clientId, { client_id, scope, ...claims }, header);
    },
    async rotate(rotateOptions = {}) {
      const previous = current;
      current = await newKey(alg);
      published = rotateOptions.keepPrevious ? [current, previous] : [current];
    },
    setAvailable(up, how = 'status') {
      available = up;
      outage = how;
      if (up) releaseHanging();
    },
    async stop() {
      releaseHanging();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------
// Attack tokens.

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** An unsecured JWT (`alg: none`, empty signature). */
export function unsignedToken(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const protectedHeader = { alg: 'none', typ: 'JWT', ...header };
  return `${base64url(JSON.stringify(protectedHeader))}.${base64url(JSON.stringify(claims))}.`;
}

/**
 * The claims of a service's client-credentials token (RFC 9068), for the
 * token makers below that sign raw claims (an HS256 secret, a foreign key).
 */
export function serviceClaims(
  clientId: string,
  scopes: string | readonly string[],
): { sub: string; client_id: string; scope: string } {
  const scope = typeof scopes === 'string' ? scopes : scopes.join(' ');
  return { sub: clientId, client_id: clientId, scope };
}

/**
 * An HS256 token MACed with `secret` — e.g. the issuer's public key PEM bytes, the
 * classic RS/HS confusion attack. `header.kid` may name a real key of the JWKS.
 */
export function hs256With(
  secret: Uint8Array,
  claims: Record<string, unknown>,
  header: { kid?: string } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...header })
    .sign(secret);
}

let foreignKey: Promise<CryptoKey> | undefined;

/**
 * A well-formed ES256 token signed by a key no test issuer publishes, with a kid
 * (default `foreign-key`) that no JWKS knows. Pass a real issuer's kid to get a
 * token whose signature does not match the named key.
 */
export async function signWithForeignKey(
  claims: Record<string, unknown>,
  header: { kid?: string | null } = {},
): Promise<string> {
  foreignKey ??= generateKeyPair('ES256').then(({ privateKey }) => privateKey);
  const kid = header.kid === undefined ? 'foreign-key' : header.kid;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...(kid === null ? {} : { kid }) })
    .sign(await foreignKey);
}
