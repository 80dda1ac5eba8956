import { startTracing } from './tracing.js';

/**
 * Preloaded by the production start (`node --import ./dist/src/telemetry/preload.js
 * dist/src/server.js`): starts tracing, when configured, before the server's
 * modules load. Without an OTLP endpoint it does nothing.
 */
try {
  await startTracing(process.env);
} catch (error) {
  process.stderr.write(
    `Failed to start tracing: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
