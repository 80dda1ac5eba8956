import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The API's Content-Security-Policy: it serves JSON only, so nothing may load
 * and nothing may frame it. A route that serves HTML (GET /docs) replaces it
 * with its own `res.setHeader('Content-Security-Policy', …)`: setHeader
 * overwrites the value helmet wrote, so the docs router owns its policy and
 * this one never has to know it.
 */
export const API_CSP = "default-src 'none';frame-ancestors 'none';base-uri 'none'";

/** helmet's headers (HSTS, nosniff, frame and referrer policy, …) with the API's CSP. */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(API_CSP) },
  });
}

function cspDirectives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

/** Headers a browser caller may read (rate limits, retry hints, the request id). */
const EXPOSED_HEADERS = [
  'Retry-After',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'WWW-Authenticate',
  'X-Request-Id',
];

/**
 * CORS for the origins in CORS_ORIGINS (exact match; default none, so no
 * browser origin may call). Preflights from an allowed origin answer 204.
 */
export function corsPolicy(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PATCH'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
