/** The servers a bench run loads: the built service (and a previous build of it), the baselines. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchServiceEnv, type BenchIssuer } from './issuer.js';
import { env, log, outDir, ROOT, settings, type Running, type Side } from './settings.js';
import { freePort } from './ports.js';

export async function waitReady(
  url: string,
  child: ChildProcess,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok || response.status === 404) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server at ${url} did not start: ${stderr()}`);
}

export function spawnServer(side: Side, args: string[], extraEnv: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: env.PATH, HOME: env.HOME, ...extraEnv },
    // Logs are formatted and written as in production, then discarded.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  return { side, child, stderr: () => stderr };
}

export function removePrevious(root: string): void {
  spawnSync('git', ['worktree', 'remove', '--force', root], { cwd: ROOT });
  rmSync(root, { recursive: true, force: true });
}

/**
 * Builds `ref` of the service in a temporary git worktree; returns its root.
 * It shares this checkout's node_modules when its lock file and patches/ are
 * this checkout's; otherwise it gets its own, installed as that commit
 * installs (`npm ci`, then its postinstall, which applies its patches), so a
 * before/after of a dependency or a library patch compares what each build
 * would run in production.
 */
export function buildPrevious(ref: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-previous-'));
  const run = (command: string, args: string[], cwd: string) => {
    const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
  };
  log(`building ${ref} (BENCH_COMPARE) in ${root}`);
  try {
    run('git', ['worktree', 'add', '--detach', '--force', root, ref], ROOT);
    const same = spawnSync('git', ['diff', '--quiet', ref, '--', 'package-lock.json', 'patches'], {
      cwd: ROOT,
    });
    if (same.status === 0) {
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    } else {
      log(`${ref} installs other packages or patches: npm ci in ${root}`);
      run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], root);
      const scripts = (
        JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
          scripts?: Record<string, string>;
        }
      ).scripts;
      if (scripts?.postinstall) run('npm', ['run', 'postinstall'], root);
    }
    run('npx', ['tsc', '-p', 'tsconfig.build.json'], root);
  } catch (error) {
    removePrevious(root);
    throw error;
  }
  return root;
}

/** Node flags and environment a caller adds to the service's (bench/profile.ts: its profiler). */
export interface ServiceExtras {
  flags?: string[];
  env?: Record<string, string>;
}

/**
 * Starts the build at `root` (this checkout's, or BENCH_COMPARE's as side
 * "previous"). With BENCH_CPU_PROF=1 it writes `<side>.cpuprofile` to the
 * run's results folder when it stops.
 */
export async function startService(
  issuer: BenchIssuer,
  databaseUrl: string,
  root = ROOT,
  side: 'service' | 'previous' = 'service',
  extras: ServiceExtras = {},
): Promise<Running> {
  const port = await freePort();
  const metricsPort = await freePort();
  const flags = [...settings.nodeFlags, ...(extras.flags ?? [])];
  if (settings.cpuProf) {
    flags.push('--cpu-prof', `--cpu-prof-dir=${outDir}`, `--cpu-prof-name=${side}.cpuprofile`);
  }
  const server = spawnServer(side, [...flags, path.join(root, 'dist/src/server.js')], {
    ...benchServiceEnv(issuer, databaseUrl, port),
    METRICS_PORT: String(metricsPort),
    // The per-IP limit would stop a load generator on one address; the per-user
    // limit stays on (high enough never to trigger) so its cost is measured.
    RATE_LIMIT_PER_IP: '0',
    RATE_LIMIT_PER_USER: '1000000',
    ...(env.BENCH_SERVICE_ENV
      ? Object.fromEntries(new URLSearchParams(env.BENCH_SERVICE_ENV))
      : {}),
    ...extras.env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, server.child, server.stderr);
  // The time decomposition reads this build's metrics; a previous build may have none.
  const metricsUrl = root === ROOT ? `http://127.0.0.1:${metricsPort}/metrics` : undefined;
  return { ...server, url, metricsUrl };
}

export async function startBaseline(
  issuer: BenchIssuer,
  databaseUrl: string,
  side: 'baseline' | 'floor',
  file: string,
): Promise<Running> {
  const port = await freePort();
  const server = spawnServer(side, ['--import', 'tsx', file], {
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    AUTH_ISSUER: issuer.issuer,
    AUTH_JWKS_URL: issuer.jwksUrl,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, server.child, server.stderr);
  return { ...server, url };
}

export async function stop(server: Running): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}
