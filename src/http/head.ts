import type { RequestHandler } from 'express';

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
