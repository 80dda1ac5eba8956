/**
 * `npm run bench:reads -- --database-url URL [--database-url URL2 …] [--issuer ISS] [--smoke]`
 *
 * Reads at scale (issue 31, items 3 and 5), on boards seeded by
 * `npm run bench:seed -- --users N --database-url URL --issuer ISS` (users
 * `seed-1` … `seed-N`; the same ISS here, https://seed.test by default).
 * For each database, in one run: the built service (dist/src/server.js, as
 * `npm start` runs it) and the reads baseline (bench/reads-baseline.ts:
 * `node:http` + jose + the same SQL), each loaded with wrk at
 * BENCH_CONNECTIONS (50) connections, in alternating rounds, on:
 *
 *   first-page      GET /api/leaderboard?limit=20            (the shared first page on the service)
 *   team-page       GET /api/leaderboard?team=Team%201&limit=20
 *   around-me       GET /api/leaderboard/me?radius=5
 *   points-history  GET /api/user/points?limit=20
 *   rank            GET /api/leaderboard/me?radius=0         (a rank read over HTTP: item 5)
 *
 * as random users among BENCH_READ_USERS (2,000) seeded ones. It prints, per
 * database and scenario, req/s, p50 and p99 of both sides (medians over the
 * rounds) and the service/baseline ratios (targets: throughput ≥ 0.8×, p99 ≤
 * 1.5×); with two or more databases, the rank read's p50/p99 on each against
 * the first (item 5: a 200k board at most 1.5× a 20k board):
 *
 *   npm run bench:seed -- --users 20000  --database-url postgres://postgres@127.0.0.1:5432/reads_20k  --issuer https://seed.test --no-measure
 *   npm run bench:seed -- --users 200000 --database-url postgres://postgres@127.0.0.1:5432/reads_200k --issuer https://seed.test --no-measure
 *   npm run bench:reads -- --database-url postgres://postgres@127.0.0.1:5432/reads_20k \
 *     --database-url postgres://postgres@127.0.0.1:5432/reads_200k
 *
 * `--smoke`: tiny durations, to check the harness works (no figures).
 * Env: BENCH_DURATION (s per round; 10), BENCH_WARMUP (s; 3), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (50), BENCH_THREADS (1), BENCH_READ_USERS (2000),
 * BENCH_SCENARIOS (comma list), BENCH_SERVICE_ENV (extra service env as a
 * query string, e.g. `DATABASE_READ_URL=…` or `LEADERBOARD_FIRST_PAGE_CACHE_MS=0`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchServiceEnv, startIssuer, type BenchIssuer } from './issuer.js';
import { freePort } from './ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string', multiple: true },
    issuer: { type: 'string', default: 'https://seed.test' },
    smoke: { type: 'boolean', default: false },
  },
});
const databases = args['database-url'] ?? [];
if (databases.length === 0) {
  throw new Error(
    '--database-url is required: a board seeded by npm run bench:seed (see bench/reads.ts)',
  );
}
const smoke = args.smoke;
const env = process.env;
const num = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const settings = {
  duration: num('BENCH_DURATION', smoke ? 1 : 10),
  warmup: num('BENCH_WARMUP', smoke ? 1 : 3),
  rounds: num('BENCH_ROUNDS', smoke ? 1 : 3),
  connections: num('BENCH_CONNECTIONS', 50),
  threads: num('BENCH_THREADS', 1),
  users: num('BENCH_READ_USERS', smoke ? 50 : 2000),
};

const SCENARIOS = [
  { name: 'first-page', path: '/api/leaderboard?limit=20' },
  { name: 'team-page', path: '/api/leaderboard?team=Team%201&limit=20' },
  { name: 'around-me', path: '/api/leaderboard/me?radius=5' },
  { name: 'points-history', path: '/api/user/points?limit=20' },
  { name: 'rank', path: '/api/leaderboard/me?radius=0' },
].filter((s) => !env.BENCH_SCENARIOS || env.BENCH_SCENARIOS.split(',').includes(s.name));

type Side = 'service' | 'baseline';
interface Sample {
  database: string;
  scenario: string;
  side: Side;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}
interface Running {
  side: Side;
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const outDir = path.join(ROOT, 'bench', 'results', `reads-${stamp}`);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  log('building the service');
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('build failed');
  const issuer = await startIssuer({ issuer: args.issuer });
  const samples: Sample[] = [];
  try {
    for (const databaseUrl of databases) {
      const name = new URL(databaseUrl).pathname.slice(1);
      const size = await seededUsers(databaseUrl, issuer.issuer);
      log(`${name}: ${size} seeded users of ${issuer.issuer}`);
      const tokens = tokenFile(issuer, name, size);
      const sides = [
        await startService(issuer, databaseUrl),
        await startBaseline(issuer, databaseUrl),
      ];
      try {
        for (const scenario of SCENARIOS) {
          for (const side of sides) await load(side, scenario.path, tokens, settings.warmup);
          for (let round = 0; round < settings.rounds; round += 1) {
            // Alternate which side goes first, so neither always runs on a warmer database.
            const order = round % 2 === 0 ? sides : [...sides].reverse();
            for (const side of order) {
              const result = await load(side, scenario.path, tokens, settings.duration);
              samples.push({ database: name, scenario: scenario.name, side: side.side, ...result });
              log(
                `${name} ${scenario.name} ${side.side}: ${result.rps.toFixed(0)} req/s, ` +
                  `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms` +
                  (result.failures ? `, ${result.failures} failed` : ''),
              );
            }
          }
        }
      } finally {
        for (const side of sides) await stop(side);
      }
    }
  } finally {
    await issuer.close();
  }
  const text = report(samples);
  process.stdout.write(text);
  writeFileSync(path.join(outDir, 'report.md'), text);
  writeFileSync(path.join(outDir, 'samples.json'), JSON.stringify(samples, null, 2));
  log(`written to ${path.relative(ROOT, outDir)}/`);
  if (samples.some((s) => s.failures > 0)) process.exitCode = 1;
}

/** How many of `seed-1` … `seed-N` the database holds for `issuer` (bench:seed's users). */
async function seededUsers(databaseUrl: string, issuer: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from users where issuer = $1 and subject like 'seed-%'",
      [issuer],
    );
    const n = Number(rows[0]!.n);
    if (n === 0)
      throw new Error(
        `no users seeded for ${issuer}: run npm run bench:seed -- --issuer ${issuer}`,
      );
    return n;
  } finally {
    await client.end();
  }
}

/** Tokens of BENCH_READ_USERS seeded users spread over the board (one per line). */
function tokenFile(issuer: BenchIssuer, name: string, size: number): string {
  const count = Math.min(settings.users, size);
  const lines = Array.from({ length: count }, (_, i) => {
    const g = 1 + Math.floor(((i + 0.5) * size) / count);
    return issuer.sign(`seed-${Math.min(g, size)}`, 6 * 3600);
  });
  const file = path.join(outDir, `tokens-${name}.txt`);
  writeFileSync(file, lines.join('\n'));
  return file;
}

function spawnServer(side: Side, argv: string[], extraEnv: Record<string, string>) {
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: env.PATH, HOME: env.HOME, ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-50_000);
  });
  return { side, child, stderr: () => stderr };
}

async function waitReady(server: Omit<Running, 'url'>, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null)
      throw new Error(`${server.side} exited: ${server.stderr()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${server.side} at ${url} did not start: ${server.stderr()}`);
}

async function startService(issuer: BenchIssuer, databaseUrl: string): Promise<Running> {
  const port = await freePort();
  const server = spawnServer(
    'service',
    ['--max-old-space-size=128', path.join(ROOT, 'dist/src/server.js')],
    {
      ...benchServiceEnv(issuer, databaseUrl, port),
      // One load generator on one address; the per-user limit stays on, out of reach.
      RATE_LIMIT_PER_IP: '0',
      RATE_LIMIT_PER_USER: '1000000',
      LOG_LEVEL: 'warn',
      ...(env.BENCH_SERVICE_ENV
        ? Object.fromEntries(new URLSearchParams(env.BENCH_SERVICE_ENV))
        : {}),
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(server, url);
  return { ...server, url };
}

async function startBaseline(issuer: BenchIssuer, databaseUrl: string): Promise<Running> {
  const port = await freePort();
  const server = spawnServer(
    'baseline',
    ['--import', 'tsx', path.join(ROOT, 'bench/reads-baseline.ts')],
    {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      AUTH_ISSUER: issuer.issuer,
      AUTH_JWKS_URL: issuer.jwksUrl,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(server, url);
  return { ...server, url };
}

async function stop(server: Running): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

async function load(
  target: Running,
  requestPath: string,
  tokens: string,
  seconds: number,
): Promise<Omit<Sample, 'database' | 'scenario' | 'side'>> {
  const wrk = spawn(
    'wrk',
    [
      `-t${settings.threads}`,
      `-c${settings.connections}`,
      `-d${seconds}s`,
      '--timeout',
      '10s',
      '-s',
      path.join(ROOT, 'bench', 'reads.lua'),
      target.url,
    ],
    {
      env: { ...env, BENCH_TOKENS: tokens, BENCH_PATH: requestPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  wrk.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  wrk.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => wrk.once('exit', resolve));
  const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${out}\n${target.stderr()}`);
  const r = JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, number>;
  return {
    rps: r.requests! / (r.durationUs! / 1e6),
    p50Ms: r.p50Us! / 1000,
    p99Ms: r.p99Us! / 1000,
    failures: r.errors! + r.notOk!,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function report(samples: Sample[]): string {
  const of = (database: string, scenario: string, side: Side) => {
    const mine = samples.filter(
      (s) => s.database === database && s.scenario === scenario && s.side === side,
    );
    return {
      rps: median(mine.map((s) => s.rps)),
      p50: median(mine.map((s) => s.p50Ms)),
      p99: median(mine.map((s) => s.p99Ms)),
      failures: mine.reduce((sum, s) => sum + s.failures, 0),
    };
  };
  const names = [...new Set(samples.map((s) => s.database))];
  const lines = [
    `# bench:reads ${stamp}`,
    '',
    `${settings.connections} connections, ${settings.rounds} round(s) of ${settings.duration} s (medians)${smoke ? ', SMOKE RUN: not figures' : ''}`,
    '',
    '| database | scenario | service req/s | p50 / p99 ms | baseline req/s | p50 / p99 ms | throughput × (≥ 0.8) | p50 × | p99 × (≤ 1.5) | failed |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const database of names) {
    for (const { name } of SCENARIOS) {
      const s = of(database, name, 'service');
      const b = of(database, name, 'baseline');
      lines.push(
        `| ${database} | ${name} | ${s.rps.toFixed(0)} | ${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} | ` +
          `${b.rps.toFixed(0)} | ${b.p50.toFixed(2)} / ${b.p99.toFixed(2)} | ${(s.rps / b.rps).toFixed(2)} | ` +
          `${(s.p50 / b.p50).toFixed(2)} | ${(s.p99 / b.p99).toFixed(2)} | ${s.failures + b.failures} |`,
      );
    }
  }
  if (names.length > 1 && SCENARIOS.some((s) => s.name === 'rank')) {
    const base = of(names[0]!, 'rank', 'service');
    lines.push(
      '',
      `Rank read over HTTP (service, GET /api/leaderboard/me?radius=0) against ${names[0]} (target ≤ 1.5×):`,
      '',
    );
    lines.push(
      '| database | p50 ms | p99 ms | p50 × | p99 × |',
      '| --- | ---: | ---: | ---: | ---: |',
    );
    for (const database of names) {
      const r = of(database, 'rank', 'service');
      lines.push(
        `| ${database} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.p50 / base.p50).toFixed(2)} | ${(r.p99 / base.p99).toFixed(2)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
