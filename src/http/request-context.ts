import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';
import { metrics } from '../metrics.js';
import { observedOf, type Observed } from './observed.js';
import type { Operation } from './operations.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Echoed in the X-Request-Id response header and on every log line of the request. */
      requestId: string;
      log: Logger;
    }
  }
}

/** The request bound to pino-http's unused child logger: nothing. */
function omitRequest(): undefined {
  return undefined;
}

/** The fields of the request's one log line. */
function requestLine(_req: IncomingMessage, res: ServerResponse) {
  const observed = observedOf(res);
  if (!observed) return { status: res.statusCode };
  return {
    method: observed.method,
    path: observed.path,
    operation: observed.operation,
    status: res.statusCode,
    errorCode: observed.errorCode,
    userId: observed.userId,
    clientId: observed.clientId,
    durationMs: Math.round((performance.now() - observed.started) * 10) / 10,
    // The connection closed before the response was complete (a client that
    // went away, a live stream ended by its client).
    aborted: res.writableFinished ? undefined : true,
  };
}

/**
 * First on every request: gives it an id (the caller's X-Request-Id when it
 * is sane), names its operation (operations.ts), and when the response is
 * finished (or its connection closed) records its duration in the metrics and
 * logs one line through pino-http: method, path without query string,
 * operation, status, error code, user or client id, duration. No headers, so
 * no Authorization header, and no query, so no token placed there
 * (src/logger.ts redacts both should someone log them later).
 */
export function requestContext(
  logger: Logger,
  resolve: (method: string, url: string) => Operation,
): RequestHandler {
  const http = pinoHttp({
    logger,
    quietReqLogger: true,
    quietResLogger: true,
    // pino-http also builds a child logger bound to the whole request, which
    // this service never uses (the line is requestLine's): serializing the
    // request, headers and all, into it on every request would cost CPU for
    // nothing, so its serializer leaves the request out.
    wrapSerializers: false,
    serializers: { req: omitRequest },
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id =
        typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res) => (res.statusCode >= 500 ? 'warn' : 'info'),
    customSuccessObject: requestLine,
    customErrorObject: requestLine,
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request',
  });
  return (req, res, next) => {
    const url = req.originalUrl;
    const operation = resolve(req.method, url);
    const observed: Observed = {
      operation: operation.name,
      method: req.method,
      path: url.split('?', 1)[0]!,
      started: performance.now(),
    };
    res.locals.observed = observed;
    res.once('close', () => {
      const seconds = (performance.now() - observed.started) / 1000;
      metrics.request(operation.name, operation.face, res.statusCode, seconds);
    });
    http(req, res, () => {
      req.requestId = String(req.id);
      next();
    });
  };
}
