/**
 * Request bodies for both faces, read before any procedure sees them: the
 * 16 KiB limit, the nesting limit and the media type, with body-parser's
 * failures turned into the contract's errors.
 */
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { AppError } from '../app-error.js';

/** The contract's body limit (docs/CONTRACT.md, Errors). */
export const BODY_LIMIT_BYTES = 16 * 1024;

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
const BODY_PARSER_ERRORS: Record<string, () => AppError> = {
  'entity.too.large': () =>
    new AppError(
      'PAYLOAD_TOO_LARGE',
      `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`,
    ),
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

/** A body-parser failure as the AppError the client sees; unknown failures stay as they are. */
export function bodyParserError(err: unknown): unknown {
  const type = (err as { type?: unknown }).type;
  const known = typeof type === 'string' ? BODY_PARSER_ERRORS[type] : undefined;
  return known ? known() : err;
}

/**
 * body-parser `verify` for both faces, on the raw bytes before anything decodes
 * them: the body must be UTF-8 (a decoder would silently turn bad bytes into
 * U+FFFD, and two different byte strings into one stored value), and its
 * nesting is bounded before JSON.parse runs.
 */
export function verifyJsonBytes(_req: unknown, _res: unknown, buf: Buffer): void {
  if (!isUtf8(buf)) {
    throw Object.assign(new Error('The request body is not valid UTF-8'), {
      type: 'entity.invalid.utf8',
    });
  }
  assertJsonDepth(buf.toString('utf8'));
}

/**
 * Reads REST bodies before the OpenAPI adapter sees them. The adapter alone
 * accepts only an exact `application/json` and silently drops a body sent as
 * `application/json; charset=utf-8`; here any JSON media type with a UTF-8
 * charset is parsed (inflated size ≤ 16 KiB), anything else is a 415, and the
 * body must be a JSON object. The adapter then uses `req.body` as parsed.
 */
export function jsonBody(): RequestHandler {
  const parse = express.json({
    limit: BODY_LIMIT_BYTES,
    strict: false,
    type: () => true,
    verify: verifyJsonBytes,
  });
  return (req, res, next) => {
    if (!METHODS_WITH_BODY.has(req.method)) {
      next();
      return;
    }
    const mediaType = req.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      next(
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          mediaType
            ? `Content-Type "${mediaType}" is not supported: send application/json`
            : 'Content-Type is missing: send application/json',
        ),
      );
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) {
        next(bodyParserError(err));
        return;
      }
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        next(new AppError('VALIDATION_FAILED', 'The request body must be a JSON object'));
        return;
      }
      // JSON.parse keeps "__proto__" as an own key, but the adapter copies the
      // body with Object.assign, which would turn it into a prototype instead
      // of an unknown field. Refuse it here, like any other unknown key.
      if (Object.hasOwn(body, '__proto__')) {
        next(
          new AppError('VALIDATION_FAILED', 'Unknown field "__proto__"', {
            issues: [{ path: '__proto__', message: 'Unknown field "__proto__"' }],
          }),
        );
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
 * so both faces share the body limits; tRPC uses a string `req.body` as is.
 * Failures leave through the app's error handler as the envelope.
 */
export function trpcBodyGuard(): RequestHandler {
  const read = express.text({
    limit: BODY_LIMIT_BYTES,
    type: () => true,
    verify: verifyJsonBytes,
  });
  return (req, res, next) =>
    read(req, res, (err?: unknown) => next(err ? bodyParserError(err) : undefined));
}
