import type { ServerResponse } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/**
 * What the bench's bare servers (bench/baseline.ts, bench/floor.ts) share, so
 * both verify tokens the same way and answer the same way.
 */

/** The ES256 verification against AUTH_JWKS_URL for AUTH_ISSUER: the subject of a valid token. */
export function tokenVerifier(env: NodeJS.ProcessEnv): (token: string) => Promise<string> {
  const jwks = createRemoteJWKSet(new URL(env.AUTH_JWKS_URL!));
  const options = {
    issuer: env.AUTH_ISSUER!,
    algorithms: ['ES256'],
    clockTolerance: 30,
    requiredClaims: ['exp', 'sub'],
  };
  return async (token) => (await jwtVerify(token, jwks, options)).payload.sub!;
}

/** Writes `body` as a JSON response. */
export function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}
