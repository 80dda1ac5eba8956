import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  url: string;
  /** Where GET /metrics answers, when METRICS_PORT was set. */
  metricsUrl: string | undefined;
  child: ChildProcess;
  /** Every line the process wrote to stdout (JSON logs). */
  stdout: string[];
  stderr: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs a TypeScript entry point of this repo in a child process with tsx,
 * after the modules in `preload` (`node --import`).
 */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  preload: string[] = [],
): ChildProcess {
  const imports = ['tsx', ...preload].flatMap((module) => ['--import', module]);
  const child = spawn(process.execPath, [...imports, script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/**
 * Children still running when the test worker exits (a test that timed out
 * before it stopped its process): killed then, not left running on the machine.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Collects a child's output and exit code. */
export async function runToEnd(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = runScript(script, args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await waitForExit(child);
  return { code, stdout, stderr };
}

/** What the production start preloads (package.json `start`): tracing, when configured. */
export const SERVER_PRELOAD = './src/telemetry/preload.ts';

/**
 * Starts `src/server.ts` as its own process on an ephemeral port, as the
 * production start does (with the tracing preload, and `preload` before it),
 * and waits for its "listening" log line.
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  preload: string[] = [],
): Promise<ServerProcess> {
  const child = runScript('src/server.ts', [], { PORT: '0', HOST: '127.0.0.1', ...env }, [
    ...preload,
    SERVER_PRELOAD,
  ]);
  const stdout: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const { port, metricsPort } = await new Promise<{
    port: number;
    metricsPort: number | undefined;
  }>((resolve, reject) => {
    let buffered = '';
    // A start creating its embedded database took over 60 s on a loaded
    // 2-core machine; the tests that start processes allow 120 s.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not log "listening" within 110 s: ${stderr}`));
    }, 110_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        stdout.push(line);
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number; metricsPort?: number };
          if (entry.msg === 'listening' && entry.port) {
            clearTimeout(timer);
            resolve({ port: entry.port, metricsPort: entry.metricsPort });
          }
        } catch {
          // not a JSON line
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metricsPort === undefined ? undefined : `http://127.0.0.1:${metricsPort}/metrics`,
    child,
    stdout,
    stderr: () => stderr,
    stop(signal = 'SIGTERM') {
      const exited = waitForExit(child);
      child.kill(signal);
      return exited;
    },
  };
}
