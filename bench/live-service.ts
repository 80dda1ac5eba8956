/**
 * One service process of `npm run bench:live` (bench/live.ts): the built
 * service on the bench's database with a heap of `heapMb`, bench/heap-probe.cjs
 * preloaded (it answers the heap in use after a full GC, and writes heap
 * snapshots, over IPC).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { benchServiceEnv, type startIssuer } from './issuer.js';
import { memory } from './live-clients.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface LiveService {
  base: string;
  process: ChildProcess;
  memory(): { rssMb: number; peakMb: number };
  /** The heap in use after a full GC, in bytes. */
  heap(): Promise<number>;
  /** Writes a heap snapshot to `path`. */
  snapshot(path: string): Promise<void>;
  /** Up: neither exited nor killed by a signal (an out-of-memory abort is SIGABRT, the kernel's OOM killer SIGKILL). */
  alive(): boolean;
  /** How it ended (`exit code 1`, `signal SIGABRT`), once it has. */
  exit(): string;
  stop(): Promise<void>;
}

export async function startLiveService(options: {
  issuer: Awaited<ReturnType<typeof startIssuer>>;
  databaseUrl: string;
  receiverUrl: string;
  heapMb: number;
  /** More of the service's environment (the stream limits). */
  env: Record<string, string>;
}): Promise<LiveService> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--require',
      './bench/heap-probe.cjs',
      `--max-old-space-size=${options.heapMb}`,
      'dist/src/server.js',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...benchServiceEnv(options.issuer, options.databaseUrl, port),
        RATE_LIMIT_PER_IP: '0',
        RATE_LIMIT_PER_USER: '0',
        WEBHOOK_URL: options.receiverUrl,
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        // The bench's receiver listens on this machine.
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const ask = <T>(message: unknown) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the heap probe did not answer')), 30_000);
      child.once('message', (answer: T) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send(message as never);
    });
  const base = `http://127.0.0.1:${port}`;
  // A process killed by a signal has no exit code, only a signal.
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const exit = () =>
    child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
  for (let i = 0; ; i += 1) {
    if (ended()) throw new Error(`the service ended (${exit()})`);
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base,
    process: child,
    memory: () => memory(child.pid!),
    heap: async () => (await ask<{ heapUsed: number }>('heap')).heapUsed,
    snapshot: async (path) => {
      await ask({ snapshot: path });
    },
    alive: () => !ended(),
    exit: () => (ended() ? exit() : 'running'),
    stop: async () => {
      if (ended()) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
