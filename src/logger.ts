import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { traceFields } from './telemetry/tracing.js';

export type { Logger };

/**
 * JSON logs, one line per event. Nothing in this service logs request headers,
 * so the Authorization header cannot reach a log line; the redaction below is a
 * second line of defence should someone log a request object later.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
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
