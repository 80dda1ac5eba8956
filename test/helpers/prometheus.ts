import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The `prometheus` binary (Debian's package installs /usr/bin/prometheus), or undefined. */
export function findPrometheus(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' });
  const binary = found.stdout.trim();
  return found.status === 0 && binary !== '' ? binary : undefined;
}

export interface Sample {
  metric: Record<string, string>;
  value: number;
}

export interface Prometheus {
  url: string;
  /** An instant query (GET /api/v1/query): the vector's samples. */
  query(expression: string): Promise<Sample[]>;
  /** Polls `query` until `accept` holds for its samples; throws with the last answer after `timeoutMs`. */
  until(
    expression: string,
    accept: (samples: Sample[]) => boolean,
    timeoutMs?: number,
  ): Promise<Sample[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/**
 * Starts a real Prometheus scraping `target` (host:port, path /metrics) every
 * second, with its storage in a temporary directory removed by `stop`.
 */
export async function startPrometheus(binary: string, target: string): Promise<Prometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ups-prometheus-'));
  const config = path.join(dir, 'prometheus.yml');
  await writeFile(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: ups',
      '    metrics_path: /metrics',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const query = async (expression: string): Promise<Sample[]> => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: {
        resultType: string;
        result: Array<{ metric: Record<string, string>; value: [number, string] }>;
      };
    };
    if (body.status !== 'success' || body.data?.resultType !== 'vector') {
      throw new Error(`query ${expression} failed: ${JSON.stringify(body)}`);
    }
    return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
  };

  return {
    url,
    query,
    async until(expression, accept, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const samples = await query(expression);
        if (accept(samples)) return samples;
        if (Date.now() > until) {
          throw new Error(`${expression}: still ${JSON.stringify(samples)} after ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    stop,
  };
}
