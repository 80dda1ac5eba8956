import express, { type RequestHandler } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { appRouter } from '../../routers/index.js';
import { contextFactory, type AppDeps } from '../context.js';
import { errorHeaders, toAppError } from '../error-mapping.js';
import { BODY_LIMIT_BYTES, bodyParserError } from './json-body.js';
import { assertJsonDepth } from './security.js';

/**
 * Reads a /trpc body as text (≤ 16 KiB, nesting ≤ 32) before tRPC parses it,
 * so both faces share the body limits; tRPC uses a string `req.body` as is.
 * Failures leave through the app's error handler as the envelope.
 */
export function trpcBodyGuard(): RequestHandler {
  const read = express.text({
    limit: BODY_LIMIT_BYTES,
    type: () => true,
    verify: (_req, _res, buf, encoding) =>
      assertJsonDepth(buf.toString(encoding as BufferEncoding)),
  });
  return (req, res, next) =>
    read(req, res, (err?: unknown) => next(err ? bodyParserError(err) : undefined));
}

/** The tRPC face at /trpc: same procedures, the standard tRPC wire format. */
export function trpcHandler(deps: AppDeps): RequestHandler {
  return createExpressMiddleware({
    router: appRouter,
    createContext: contextFactory(deps),
    maxBodySize: BODY_LIMIT_BYTES,
    onError: ({ error, req }) => {
      if (toAppError(error).code === 'INTERNAL')
        req.log.error({ err: error.cause ?? error }, 'internal error');
    },
    responseMeta: ({ errors }) => {
      const error = errors[0];
      return error ? { headers: errorHeaders(toAppError(error)) } : {};
    },
  });
}
