import type { ErrorRequestHandler, Response } from 'express';
import type { AppError } from '../app-error.js';
import { errorBody, errorHeaders, errorStatus, toAppError } from '../error-mapping.js';

/** Writes an AppError as the documented envelope with its status and headers. */
export function sendError(res: Response, error: AppError): void {
  res.status(errorStatus(error)).set(errorHeaders(error)).json(errorBody(error));
}

/** The last Express handler: anything thrown by a middleware leaves as the envelope. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const error = toAppError(err);
  if (error.code === 'INTERNAL') req.log.error({ err }, 'unhandled error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendError(res, error);
};
