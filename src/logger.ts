import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { traceFields } from './telemetry/tracing.js';

export type { Logger };

/**
 * JSON logs, one line per event. Nothing in this service logs request headers,
 * so the Authorization header cannot reach a log line; the redaction below is a
 * second line of defence should someone log a request object later.
 *
 * By default the lines go to stdout through pino's asynchronous destination
 * (sonic-boom): a request never waits for its line to be written, and lines
 * are buffered up to 4 KiB, so a write to stdout carries a dozen lines or
 * so, not one (a write per line cost as much CPU as the synchronous writes
 * it replaced). The buffer is written at least every 250 ms, on `flushLogs`
 * (the server calls it before it exits on SIGTERM) and, by pino itself,
 * synchronously when the process exits; only the process dying at once
 * (SIGKILL, out of memory) can lose the last lines.
 */
export function createLogger(
  level: Config['logLevel'],
  destination: DestinationStream = pino.destination({
    dest: 1,
    sync: false,
    minLength: 4096,
    periodicFlush: 250,
  }),
): Logger {
  return pino(
    {
      level,
      base: { service: 'user-profile-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The active span's traceId and spanId on every line logged inside a traced operation.
      mixin: traceFields,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** Resolves once every line logged so far is written to the destination. */
export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
