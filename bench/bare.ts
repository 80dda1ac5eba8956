import type { ServerResponse } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/**
 * What the bench's bare servers (bench/baseline.ts, bench/floor.ts) share, so
 * both verify tokens the same way and answer the same way.
 */

/** The ES256 verification against AUTH_JWKS_URL for AUTH_ISSUER: the claims of a valid token. */
function claimsVerifier(env: NodeJS.ProcessEnv) {
  const jwks = createRemoteJWKSet(new URL(env.AUTH_JWKS_URL!));
  const options = {
    issuer: env.AUTH_ISSUER!,
    algorithms: ['ES256'],
    clockTolerance: 30,
    requiredClaims: ['exp', 'sub'],
  };
  return async (token: string) => (await jwtVerify(token, jwks, options)).payload;
}

/** The subject of a valid token. */
export function tokenVerifier(env: NodeJS.ProcessEnv): (token: string) => Promise<string> {
  const verify = claimsVerifier(env);
  return async (token) => (await verify(token)).sub!;
}

/**
 * The sending client of a valid service token holding `scope` (its
 * `client_id`, else `azp`); undefined when the token does not hold it.
 */
export function serviceTokenVerifier(
  env: NodeJS.ProcessEnv,
  scope: string,
): (token: string) => Promise<string | undefined> {
  const verify = claimsVerifier(env);
  return async (token) => {
    const claims = await verify(token);
    const client = claims.client_id ?? claims.azp;
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    return typeof client === 'string' && scopes.includes(scope) ? client : undefined;
  };
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
