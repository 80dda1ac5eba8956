import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { runScript, runToEnd, waitForExit } from '../helpers/server-process.js';

/**
 * The service's log lines leave through pino's asynchronous destination (a
 * request never waits for a write), and none is lost when the process
 * exits: pino writes what is buffered synchronously on exit, and the server
 * flushes before it exits on SIGTERM (test/platform/process/shutdown.test.ts
 * reads its last line).
 */
describe('the logger', () => {
  it('writes to stdout through an asynchronous destination', () => {
    const logger = createLogger('info') as unknown as Record<symbol, unknown>;
    const stream = logger[pino.symbols.streamSym] as {
      constructor: { name: string };
      sync: boolean;
      fd: number;
      minLength: number;
      _periodicFlush: number;
    };
    expect(stream.constructor.name).toBe('SonicBoom');
    expect(stream).toMatchObject({ sync: false, fd: 1, minLength: 4096, _periodicFlush: 250 });
  });

  it('writes a line logged in a quiet moment within its flush period, not at exit', async () => {
    const child = runScript('test/unit/fixtures/log-burst.ts', ['1', 'wait'], {});
    const started = performance.now();
    const arrived = await new Promise<number>((resolve) =>
      child.stdout!.once('data', () => resolve(performance.now())),
    );
    // The child logs at start, then waits 2 s before it exits (tsx takes some of that to start).
    expect(child.exitCode).toBeNull();
    expect(await waitForExit(child)).toBe(0);
    expect(performance.now() - arrived).toBeGreaterThan(1000);
    expect(arrived).toBeGreaterThan(started);
  });

  it.each(['exit', 'flush'])(
    'loses no line of a burst when the process exits (%s)',
    async (how) => {
      const count = 5000;
      const { code, stdout } = await runToEnd(
        'test/unit/fixtures/log-burst.ts',
        [String(count), how],
        {},
      );
      expect(code).toBe(0);
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { i: number; msg: string });
      expect(lines).toHaveLength(count);
      expect(lines.map((line) => line.i)).toEqual(Array.from({ length: count }, (_, i) => i));
      expect(lines[0]!.msg).toBe('burst');
    },
  );
});
