import type { AnyTRPCRouter } from '@trpc/server';
import type { RequestHandler } from 'express';
import { AppError } from '../app-error.js';
import { sendError } from './send-error.js';

/**
 * HEAD answers exactly as GET would, without the body (RFC 9110 §9.3.2): the
 * same status and headers, so a HEAD without a token is a 401 and an unknown
 * path a 404. The tRPC and OpenAPI adapters would otherwise answer any HEAD
 * with an empty 204. Node sends no body for a response to HEAD whatever the
 * handler writes (it decided that when the request arrived), so routing the
 * request as a GET is all it takes.
 */
export const headAsGet: RequestHandler = (req, _res, next) => {
  if (req.method === 'HEAD') req.method = 'GET';
  next();
};

/**
 * The one exception, mounted at /trpc before headAsGet: a GET of a
 * subscription opens a stream that does not end, so a HEAD turned into one
 * would never be answered (and would hold a stream slot). HEAD there answers
 * 405 METHOD_NOT_ALLOWED with `Allow: GET` in the envelope, as HEAD does on a
 * REST path without GET. The procedure is found the way tRPC's Express adapter
 * finds it: the last path segment, URL-decoded; a batch (`?batch=1`) cannot
 * carry a subscription, so it is left to tRPC.
 */
export function noHeadOnSubscriptions(router: AnyTRPCRouter): RequestHandler {
  const subscriptions = new Set(
    Object.entries(router._def.procedures as Record<string, { _def: { type: string } }>)
      .filter(([, procedure]) => procedure._def.type === 'subscription')
      .map(([path]) => path),
  );
  return (req, res, next) => {
    if (req.method !== 'HEAD' || req.query.batch === '1') {
      next();
      return;
    }
    const segment = req.path.slice(req.path.lastIndexOf('/') + 1);
    let procedure: string;
    try {
      procedure = decodeURIComponent(segment);
    } catch {
      next(); // tRPC answers a malformed path itself
      return;
    }
    if (!subscriptions.has(procedure)) {
      next();
      return;
    }
    sendError(
      res,
      new AppError('METHOD_NOT_ALLOWED', `HEAD is not supported on /trpc/${procedure}: use GET`, {
        allow: ['GET'],
      }),
    );
  };
}
