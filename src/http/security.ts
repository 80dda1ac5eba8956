import type { Server } from 'node:http';
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { AppError } from '../app-error.js';
import { errorBody, errorStatus } from '../error-mapping.js';
import type { Logger } from '../logger.js';

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

/** Deepest JSON nesting (objects and arrays) a request body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * Throws when `text` (JSON, valid or not) nests deeper than MAX_JSON_DEPTH.
 * A linear scan of the raw text, before JSON.parse and before any code walks
 * the value recursively: a 16 KiB body can nest ~8000 levels.
 */
export function assertJsonDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i += 1;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) {
        throw Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), {
          type: 'entity.too.deep',
        });
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
    }
  }
}

export const TOO_DEEP_MESSAGE = `The request body nests deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Node refuses a request whose headers exceed --max-http-header-size (16 KiB
 * by default) or that does not parse as HTTP, and by default answers with a
 * bare status line. Answer in the envelope instead (413 for oversized
 * headers: the contract's status for a request that is too large), then close.
 */
export function hardenServer(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Only malformed requests get an answer; timeouts and resets just close.
    if (!socket.writable || !error.code?.startsWith('HPE_')) {
      socket.destroy();
      return;
    }
    const appError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('PAYLOAD_TOO_LARGE', 'The request headers are larger than 16 KiB')
        : new AppError('VALIDATION_FAILED', 'The request is not valid HTTP');
    logger.info({ code: error.code }, 'refused malformed request');
    const body = JSON.stringify(errorBody(appError));
    socket.end(
      `HTTP/1.1 ${errorStatus(appError)} ${appError.code === 'PAYLOAD_TOO_LARGE' ? 'Payload Too Large' : 'Bad Request'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
