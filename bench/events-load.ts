/** The servers `npm run bench:events` starts and the senders that load them (bench/events.ts). */
import { spawn } from 'node:child_process';
import { batchBody, postEvents } from './events-post.js';
import { benchServiceEnv, type BenchIssuer } from './issuer.js';
import { postgresCpuSince, readCpuMs, readPostgresCpuMs, readRssMb } from './proc.js';
import {
  BASELINE_SCHEMA,
  FLOOR_SCHEMA,
  ROOT,
  run,
  settings,
  type Running,
  type Sample,
  type Side,
} from './events-settings.js';
import { freePort } from './ports.js';

export async function startServer(
  side: Side,
  argv: string[],
  issuer: BenchIssuer,
  databaseUrl: string,
): Promise<Running> {
  const port = await freePort();
  const extra: Record<string, string> =
    side === 'service'
      ? {
          ...benchServiceEnv(issuer, databaseUrl, port),
          RATE_LIMIT_PER_IP: '0',
          // On, so its cost is measured; never reached.
          RATE_LIMIT_PER_SERVICE: '1000000',
        }
      : {
          PORT: String(port),
          DATABASE_URL: databaseUrl,
          AUTH_ISSUER: issuer.issuer,
          AUTH_JWKS_URL: issuer.jwksUrl,
          BASELINE_SCHEMA: side === 'floor' ? FLOOR_SCHEMA : BASELINE_SCHEMA,
          BASELINE_EFFECTS: side === 'floor' ? '1' : '0',
        };
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...extra },
    // Logs are formatted and written as in production, then discarded.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${side} exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`${side} did not start: ${stderr}`);
    try {
      await fetch(`${url}/healthz`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { side, url, child, stderr: () => stderr };
}

export async function stop(server: Running): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** One batch: fresh ids, fans picked uniformly, types in turn. */
export function batchOf(prefix: string, fans: number): string {
  const events = Array.from({ length: settings.batch }, (_, i) => {
    const type = settings.types[Math.floor(Math.random() * settings.types.length)]!;
    return {
      id: `${prefix}-${i}`,
      subject: `seed-${1 + Math.floor(Math.random() * fans)}`,
      type,
      ...(type === 'article_read' && { value: 1 + Math.floor(Math.random() * 3) }),
    };
  });
  return batchBody(events);
}

/** `settings.senders` senders posting batches to `server` for `seconds`. */
export async function load(
  server: Running,
  token: string,
  fans: number,
  label: string | number,
  seconds: number,
): Promise<Omit<Sample, 'round'>> {
  const cpuBefore = readCpuMs(server.child.pid!);
  const dbCpuBefore = readPostgresCpuMs();
  let rssPeak = readRssMb(server.child.pid!);
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, readRssMb(server.child.pid!));
  }, 100);
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  let capped = 0;
  let firstError: string | undefined;
  const fail = (count: number, why: string) => {
    errors += count;
    firstError ??= why;
  };
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: settings.senders }, async (_, sender) => {
      for (let n = 0; performance.now() < until; n += 1) {
        const body = batchOf(`${run}-${server.side}-${label}-${sender}-${n}`, fans);
        const answer = await postEvents(server.url, token, body, settings.batch);
        if (answer.ms !== undefined) latencies.push(answer.ms);
        if (answer.error !== undefined) {
          fail(settings.batch, answer.error);
          continue;
        }
        events += answer.results.length;
        for (const result of answer.results) {
          if (result.status === 'recorded') continue;
          if (result.error?.code === 'CAP_REACHED') capped += 1;
          else fail(1, JSON.stringify(result));
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpuMs = readCpuMs(server.child.pid!) - cpuBefore;
  const dbCpuMs = postgresCpuSince(dbCpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length === 0
      ? NaN
      : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    side: server.side,
    events,
    eventsPerSecond: events / elapsed,
    batches: latencies.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
    capped,
    cpuMsPerEvent: cpuMs / Math.max(1, events),
    dbCpuMsPerEvent: dbCpuMs / Math.max(1, events),
    rssPeakMb: Math.max(rssPeak, readRssMb(server.child.pid!)),
    firstError,
  };
}
