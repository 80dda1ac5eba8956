import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

/**
 * Preloaded (`node --import`) before the server's own preload by tests that
 * check which OpenTelemetry modules a process loads: writes a
 * `module-log: <url>` line to stderr for each one resolved.
 */
export const MODULE_LOG_PRELOAD = './test/helpers/module-log.ts';

const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => process.stderr.write(`module-log: ${url}\n`));
port1.unref();
register('./module-log-hooks.mjs', import.meta.url, {
  data: { port: port2 },
  transferList: [port2],
});
