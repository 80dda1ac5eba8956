/**
 * Request bodies for both faces, read before any procedure sees them: the
 * 16 KiB limit, the nesting limit and the media type, with body-parser's
 * failures turned into the contract's errors.
 */
import { isUtf8 } from 'node:buffer';
import { parse as parseContentType } from 'content-type';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../app-error.js';
import type { ProcedureInfo } from '../trpc/procedures.js';

/** The contract's body limit (docs/CONTRACT.md, Errors). */
export const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Which body limit a request gets: that of the operation it calls (its meta's
 * `maxBodyKiB`, e.g. a batch of events), else the contract's 16 KiB. A tRPC
 * batch gets the largest of its calls'.
 */
export interface BodyLimits {
  rest(method: string, path: string): number;
  trpc(procedures: readonly string[]): number;
  /** The largest limit of any operation. */
  largest: number;
}

export function bodyLimits(procedures: readonly ProcedureInfo[]): BodyLimits {
  const byPath = new Map<string, number>();
  const byProcedure = new Map<string, number>();
  for (const { path, meta } of procedures) {
    if (meta?.maxBodyKiB === undefined) continue;
    const limit = meta.maxBodyKiB * 1024;
    byProcedure.set(path, limit);
    if (meta.openapi) byPath.set(`${meta.openapi.method} ${meta.openapi.path}`, limit);
  }
  return {
    rest: (method, path) => byPath.get(`${method} ${path}`) ?? BODY_LIMIT_BYTES,
    trpc: (names) => Math.max(BODY_LIMIT_BYTES, ...names.map((name) => byProcedure.get(name) ?? 0)),
    largest: Math.max(BODY_LIMIT_BYTES, ...byProcedure.values()),
  };
}

/** Deepest JSON nesting (objects and arrays) a request body may have. */
export const MAX_JSON_DEPTH = 32;

export const TOO_DEEP_MESSAGE = `The request body nests deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Throws when `text` (JSON, valid or not) nests deeper than MAX_JSON_DEPTH.
 * A linear scan of the raw text, before JSON.parse and before any code walks
 * the value recursively: a 16 KiB body can nest ~8000 levels. Hand-written
 * because the maintained JSON parsers check depth only while building the value.
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

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

// body-parser reports its failures with a `type`; these are the ones a client causes.
const BODY_PARSER_ERRORS: Record<string, (limit: number) => AppError> = {
  'entity.too.large': (limit) =>
    new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit / 1024} KiB`),
  'entity.parse.failed': () =>
    new AppError('VALIDATION_FAILED', 'The request body is not valid JSON'),
  'entity.verify.failed': () =>
    new AppError('VALIDATION_FAILED', 'The request body is not valid JSON'),
  'charset.unsupported': () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 encoded JSON'),
  'encoding.unsupported': () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Encoding'),
  'request.aborted': () => new AppError('VALIDATION_FAILED', 'The request body was cut short'),
  'request.size.invalid': () =>
    new AppError('VALIDATION_FAILED', 'The request body does not match its Content-Length'),
  'entity.too.deep': () => new AppError('VALIDATION_FAILED', TOO_DEEP_MESSAGE),
  'entity.invalid.utf8': () =>
    new AppError('VALIDATION_FAILED', 'The request body is not valid UTF-8'),
};

/**
 * A body-parser failure as the AppError the client sees. A failure without a
 * known type that body-parser marks as the client's (4xx) is a body its
 * Content-Encoding cannot decode (a zlib or brotli error): a 400, never a 500.
 * Anything else stays as it is.
 */
function bodyParserError(err: unknown, limit: number): unknown {
  const { type, status } = err as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? BODY_PARSER_ERRORS[type] : undefined;
  if (known) return known(limit);
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(
      'VALIDATION_FAILED',
      'The request body could not be decoded: it does not match its Content-Encoding',
    );
  }
  return err;
}

/**
 * Content codings a body may use. body-parser inflates them within the 16 KiB
 * limit (the limit counts the inflated bytes, so a small compressed bomb is a
 * 413). zstd is left out: only newer Node versions can decode it.
 */
export const CONTENT_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

/** The request's Content-Encoding problem (415), or undefined when it is one we accept. */
function contentEncodingError(header: string | undefined): AppError | undefined {
  const encoding = (header ?? 'identity').trim().toLowerCase();
  if (CONTENT_ENCODINGS.includes(encoding)) return undefined;
  return new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Content-Encoding "${header}" is not supported: send the body uncompressed, or as one of ` +
      `${CONTENT_ENCODINGS.filter((name) => name !== 'identity').join(', ')}`,
  );
}

/**
 * The one media-type rule of both faces: `application/json` (any letter case)
 * with no parameter but an optional `charset=utf-8`. Anything else — another
 * JSON-ish type (`application/jsonx`, `application/json-patch+json`), a list
 * of types, another charset — is a 415.
 */
function jsonMediaTypeError(header: string | undefined): AppError | undefined {
  if (header === undefined || header.trim() === '') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type is missing: send application/json');
  }
  const { type, parameters } = parseContentType(header);
  if (type !== 'application/json') {
    return new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type "${header}" is not supported: send application/json`,
    );
  }
  for (const [name, value] of Object.entries(parameters)) {
    if (name !== 'charset' || value.toLowerCase() !== 'utf-8') {
      return new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type "${header}" is not supported: send application/json or ` +
          'application/json; charset=utf-8',
      );
    }
  }
  return undefined;
}

/** What a body must pass before it is read: its media type, then its encoding. */
function bodyHeadersError(req: Request): AppError | undefined {
  return (
    jsonMediaTypeError(req.headers['content-type']) ??
    contentEncodingError(req.headers['content-encoding'])
  );
}

const utf8 = new TextDecoder('utf-8');

/**
 * body-parser `verify` for both faces, on the raw bytes before anything decodes
 * them: the body must be UTF-8 (a decoder would silently turn bad bytes into
 * U+FFFD, and two different byte strings into one stored value), and its
 * nesting is bounded before JSON.parse runs. Throws body-parser-style typed
 * errors (bodyParserError maps them).
 */
function verifyJsonBytes(_req: unknown, _res: unknown, buf: Buffer): void {
  if (!isUtf8(buf)) {
    throw Object.assign(new Error('The request body is not valid UTF-8'), {
      type: 'entity.invalid.utf8',
    });
  }
  assertJsonDepth(utf8.decode(buf));
}

/**
 * Why a parsed REST body is refused, or undefined: it must be a JSON object,
 * and without an own "__proto__" key (JSON.parse keeps it as an own key, but
 * the adapter copies the body with Object.assign, which would turn it into a
 * prototype instead of an unknown field; it is refused like any other
 * unknown key).
 */
function jsonObjectError(body: unknown): AppError | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return new AppError('VALIDATION_FAILED', 'The request body must be a JSON object');
  }
  if (Object.hasOwn(body, '__proto__')) {
    return new AppError('VALIDATION_FAILED', 'Unknown field "__proto__"', {
      issues: [{ path: '__proto__', message: 'Unknown field "__proto__"' }],
    });
  }
  return undefined;
}

/**
 * Reads REST bodies before the OpenAPI adapter sees them. The adapter alone
 * accepts only an exact `application/json` and silently drops a body sent as
 * `application/json; charset=utf-8`; here a body that passes the media-type
 * and encoding rules (jsonMediaTypeError, CONTENT_ENCODINGS) is parsed
 * (inflated size ≤ 16 KiB), and it must be a JSON object. The adapter then
 * uses `req.body` as parsed.
 */
export function jsonBody(limits: BodyLimits): RequestHandler {
  const parsers = readers((limit) =>
    express.json({ limit, strict: false, type: () => true, verify: verifyJsonBytes }),
  );
  return (req, res, next) => {
    if (!METHODS_WITH_BODY.has(req.method)) {
      next();
      return;
    }
    const refused = bodyHeadersError(req);
    if (refused) {
      next(refused);
      return;
    }
    const limit = limits.rest(req.method, req.path);
    parsers(limit)(req, res, (err?: unknown) => {
      if (err) {
        next(bodyParserError(err, limit));
        return;
      }
      const refusedBody = jsonObjectError(req.body);
      if (refusedBody) {
        next(refusedBody);
        return;
      }
      // The adapter re-checks the raw header with a case-sensitive prefix match.
      req.headers['content-type'] = 'application/json';
      next();
    });
  };
}

/**
 * Reads a /trpc body as text (≤ 16 KiB, nesting ≤ 32) before tRPC parses it,
 * under the same media-type and encoding rules as REST, so both faces share
 * the body rules; tRPC uses a string `req.body` as is.
 * Failures leave through the app's error handler as the envelope.
 */
export function trpcBodyGuard(limits: BodyLimits): RequestHandler {
  const texts = readers((limit) =>
    express.text({ limit, type: () => true, verify: verifyJsonBytes }),
  );
  return (req, res, next) => {
    const limit = limits.trpc(decodeURIComponent(req.path.slice(1)).split(','));
    if (METHODS_WITH_BODY.has(req.method)) {
      const refused = bodyHeadersError(req);
      if (refused) {
        next(refused);
        return;
      }
      // tRPC's adapter then sees the one spelling it matches.
      req.headers['content-type'] = 'application/json';
    }
    texts(limit)(req, res, (err?: unknown) => next(err ? bodyParserError(err, limit) : undefined));
  };
}

/** One body reader per limit, made on first use (there are two limits). */
function readers(make: (limit: number) => RequestHandler): (limit: number) => RequestHandler {
  const made = new Map<number, RequestHandler>();
  return (limit) => {
    let reader = made.get(limit);
    if (!reader) {
      reader = make(limit);
      made.set(limit, reader);
    }
    return reader;
  };
}
