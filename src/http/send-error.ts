import type { ErrorRequestHandler, Response } from 'express';
import type { AppError } from '../app-error.js';
import {
  errorBody,
  errorHeaders,
  errorStatus,
  logInternalError,
  toAppError,
} from '../error-mapping.js';
import { noteErrorCode } from './observed.js';

/** Writes an AppError as the documented envelope with its status and headers. */
export function sendError(res: Response, error: AppError): void {
  noteErrorCode(res, error.code);
  res.status(errorStatus(error)).set(errorHeaders(error)).json(errorBody(error));
}

/** The last Express handler: anything thrown by a middleware leaves as the envelope. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const error = toAppError(err);
  logInternalError(req.log, error);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendError(res, error);
};
