import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's identity provider: an ES256 key pair whose public half is
 * served as a JWKS over HTTP on 127.0.0.1, and a fast synchronous signer for
 * the many tokens a run needs (fans' and services'). The service and the baseline both fetch the
 * JWKS from here, so both do the same jose verification.
 */
export interface BenchIssuer {
  /** The `iss` of every token, also the base URL. */
  readonly issuer: string;
  readonly jwksUrl: string;
  /** A token for `subject`, valid for `ttlSeconds` (default 2 h). */
  sign(subject: string, ttlSeconds?: number): string;
  /**
   * A service's client-credentials token (RFC 9068): `sub` and `client_id`
   * the client id, `scope` the scopes joined by spaces; 2 h by default.
   */
  signService(clientId: string, scopes: readonly string[], ttlSeconds?: number): string;
  close(): Promise<void>;
}

const KID = 'bench-es256';
/** The `aud` of every token; the service runs in production mode, which requires AUTH_AUDIENCE. */
export const BENCH_AUDIENCE = 'user-profile-service-bench';

const base64url = (input: Buffer | string) => Buffer.from(input).toString('base64url');

/**
 * `options.issuer` fixes the tokens' `iss` (the JWKS is still served here):
 * a database seeded for that issuer (`npm run bench:seed -- --issuer ISS`)
 * is then served to its users by any run. By default the `iss` is this
 * server's URL.
 */
export async function startIssuer(options: { issuer?: string } = {}): Promise<BenchIssuer> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'ES256', use: 'sig' };
  const jwks = JSON.stringify({ keys: [jwk] });

  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const issuer = options.issuer ?? base;
  const header = base64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: KID }));

  return {
    issuer,
    jwksUrl: `${base}/jwks.json`,
    sign: (subject, ttlSeconds = 2 * 3600) =>
      signEs256(privateKey, header, { iss: issuer, sub: subject }, ttlSeconds),
    signService: (clientId, scopes, ttlSeconds = 2 * 3600) =>
      signEs256(
        privateKey,
        header,
        { iss: issuer, sub: clientId, client_id: clientId, scope: scopes.join(' ') },
        ttlSeconds,
      ),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function signEs256(
  key: KeyObject,
  header: string,
  claims: { iss: string; sub: string; [claim: string]: string },
  ttlSeconds: number,
): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = base64url(
    JSON.stringify({ ...claims, aud: BENCH_AUDIENCE, iat: now, exp: now + ttlSeconds }),
  );
  const input = `${header}.${payload}`;
  // JWS ES256 signatures are the raw r||s pair (RFC 7518 §3.4), not DER.
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${base64url(signature)}`;
}

/** The environment every bench starts the built service with, against `issuer` and `databaseUrl`. */
export function benchServiceEnv(
  issuer: BenchIssuer,
  databaseUrl: string,
  port: number,
): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    AUTH_ISSUER: issuer.issuer,
    AUTH_JWKS_URL: issuer.jwksUrl,
    AUTH_AUDIENCE: BENCH_AUDIENCE,
  };
}
