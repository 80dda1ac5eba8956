// Who a verified token speaks for: a fan, or another service of the fan app (docs/SECURITY.md, Service identity).
import type { JWTPayload } from 'jose';
import { AppError } from '../app-error.js';
import { clientIdProblem } from './subject.js';

/**
 * The scopes that make a token a service token: `events:write` records
 * activity, `admin` runs the game. A token holding either acts for its client,
 * never for a fan.
 */
export const SERVICE_SCOPES = ['events:write', 'admin'] as const;
export type ServiceScope = (typeof SERVICE_SCOPES)[number];

/** A fan signed in to the fan app. Users are keyed by (`issuer`, `subject`). */
export interface FanPrincipal {
  kind: 'fan';
  issuer: string;
  subject: string;
  /** The token's `exp`, epoch seconds. */
  expiresAt: number;
}

/** Another service calling with an OAuth 2.0 client-credentials token (RFC 9068). */
export interface ServicePrincipal {
  kind: 'service';
  issuer: string;
  /** The token's `client_id`, else its `azp`. */
  clientId: string;
  /** Every scope of the token's `scope` claim, once each, in order. */
  scopes: readonly string[];
  /** The token's `exp`, epoch seconds. */
  expiresAt: number;
}

export type Principal = FanPrincipal | ServicePrincipal;

/**
 * One string per identity, for in-process maps and rate-limit buckets keyed by
 * who is calling. The kind comes first, so a service's client id never names
 * the same key as a fan whose `sub` is spelled alike; JSON keeps the parts
 * apart whatever characters they hold.
 */
export function principalKey(principal: Principal): string {
  return JSON.stringify(
    principal.kind === 'fan'
      ? ['fan', principal.issuer, principal.subject]
      : ['service', principal.issuer, principal.clientId],
  );
}

export function isServiceScope(scope: string): scope is ServiceScope {
  return (SERVICE_SCOPES as readonly string[]).includes(scope);
}

/**
 * Classifies a verified token (signature, `iss`, `aud`, `exp` and `sub`
 * already checked). The rule, written once:
 * - `scope` is absent or a space-separated string (RFC 9068 §2.2.3); any other
 *   type is a 401.
 * - A token whose `scope` holds a service scope is a service token, whatever
 *   else it carries, and must name its client: `client_id`, else `azp`
 *   (both present and different, or neither: 401).
 * - Service scopes are read from `scope` only: a token naming one in `scp` (a
 *   string or an array, as some providers send) is a 401, so a provider set up
 *   that way fails loudly instead of its services being taken for fans.
 * - Every other token is a fan token, keyed by `sub`; its own `scope`,
 *   `client_id` or `azp` (the fan app's login) change nothing.
 */
export function principalFromClaims(
  payload: JWTPayload,
  verified: { issuer: string; subject: string; expiresAt: number },
): Principal {
  const scopes = scopeClaim(payload.scope);
  if (scpClaim(payload.scp).some(isServiceScope)) {
    throw unauthenticated(
      'The token names a service scope in "scp": send scopes in the "scope" claim, a ' +
        'space-separated string (RFC 9068)',
    );
  }
  const { issuer, subject, expiresAt } = verified;
  if (!scopes.some(isServiceScope)) return { kind: 'fan', issuer, subject, expiresAt };
  return { kind: 'service', issuer, clientId: clientIdOf(payload), scopes, expiresAt };
}

/** The scopes of the `scope` claim: absent, or a space-separated string (RFC 9068 §2.2.3). */
function scopeClaim(claim: unknown): string[] {
  if (claim === undefined) return [];
  if (typeof claim !== 'string') {
    throw unauthenticated('The token\'s "scope" claim must be a space-separated string (RFC 9068)');
  }
  return [...new Set(claim.split(' ').filter(Boolean))];
}

/** The strings of an `scp` claim, a string or an array as providers send it; looked at only for service scopes. */
function scpClaim(claim: unknown): string[] {
  if (typeof claim === 'string') return claim.split(' ');
  if (Array.isArray(claim)) return claim.filter((item): item is string => typeof item === 'string');
  return [];
}

function clientIdOf(payload: JWTPayload): string {
  const clientId = payload.client_id;
  const { azp } = payload;
  if (clientId !== undefined && azp !== undefined && clientId !== azp) {
    throw unauthenticated(
      'The service token\'s "client_id" and "azp" claims name different clients',
    );
  }
  const claim = clientId !== undefined ? 'client_id' : 'azp';
  const value = clientId ?? azp;
  const problem = clientIdProblem(value, claim);
  if (problem !== undefined || typeof value !== 'string') {
    throw unauthenticated(
      value === undefined
        ? 'A service token (one whose "scope" holds events:write or admin) must name its ' +
            'client in a "client_id" or "azp" claim'
        : (problem ?? 'The token names no client'),
    );
  }
  return value;
}

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message);
}
