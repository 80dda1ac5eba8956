import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../app-error.js';
import { errorBody, errorHeaders, errorStatus } from '../error-mapping.js';
import type { Logger } from '../logger.js';

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
    writeErrorToSocket(socket, appError);
  });
}

/**
 * Answers a request Node never hands to the app (a malformed one, a CONNECT)
 * with the envelope, its status and headers, straight on the socket, then
 * closes the connection.
 */
export function writeErrorToSocket(socket: Duplex, error: AppError): void {
  const status = errorStatus(error);
  const body = JSON.stringify(errorBody(error));
  const headers = Object.entries(errorHeaders(error)).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      headers.join('') +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
