import type { RequestHandler } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { appRouter } from '../../routers/index.js';
import { contextFactory, type AppDeps } from '../context.js';
import { errorHeaders, toAppError } from '../error-mapping.js';
import { BODY_LIMIT_BYTES } from './json-body.js';

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
