/**
 * `npm run bench:prototypes`: what `Object.setPrototypeOf` on every request
 * costs a bare node:http server, and what src/http/app-server.ts does about
 * it (docs/decisions/0016-app-server-prototypes.md).
 *
 * Each variant runs in its own process, under wrk (50 connections,
 * BENCH_DURATION seconds, 8 by default); the handler sets five of the fields
 * Express's app.handle and router set on every request and answers "ok". Prints req/s and the garbage
 * collections of each (young, and mark-compacts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const VARIANTS = {
  none: 'no setPrototypeOf',
  set: 'setPrototypeOf on req and res, as app.handle does',
  born: 'requests made with the prototypes by the server (src/http/app-server.ts), then the same call',
  construct: 'made with Reflect.construct(IncomingMessage, args, Ctor), then the same call',
} as const;
type Variant = keyof typeof VARIANTS;

const variant = process.env.PROTOTYPES_VARIANT as Variant | undefined;
if (variant) serve(variant);
else await main();

function serve(mode: Variant): void {
  const requestProto = Object.create(IncomingMessage.prototype, {
    app: { value: 'app' },
  }) as object;
  const responseProto = Object.create(ServerResponse.prototype, {
    app: { value: 'app' },
  }) as object;
  type Construct = (this: object, ...args: unknown[]) => void;
  const made = (base: unknown, proto: object, reflect: boolean) => {
    function Made(this: object, ...args: unknown[]): object | void {
      if (reflect) return Reflect.construct(base as new (...a: unknown[]) => object, args, Made);
      (base as Construct).apply(this, args);
    }
    Made.prototype = proto;
    return Made as unknown;
  };
  const options =
    mode === 'born' || mode === 'construct'
      ? {
          IncomingMessage: made(
            IncomingMessage,
            requestProto,
            mode === 'construct',
          ) as typeof IncomingMessage,
          ServerResponse: made(
            ServerResponse,
            responseProto,
            mode === 'construct',
          ) as typeof ServerResponse,
        }
      : {};
  const gc = { young: 0, markCompact: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.young += 1;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.markCompact += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  const server = createServer(options, (req, res) => {
    if (mode !== 'none') {
      Object.setPrototypeOf(req, requestProto);
      Object.setPrototypeOf(res, responseProto);
    }
    const fields = req as unknown as Record<string, unknown>;
    fields.res = res;
    (res as unknown as Record<string, unknown>).req = req;
    (res as unknown as Record<string, unknown>).locals = Object.create(null);
    fields.originalUrl = req.url;
    fields.baseUrl = '';
    res.end('ok');
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => {
    process.stdout.write(`GC ${JSON.stringify(gc)}\n`);
    process.exit(0);
  });
}

async function main(): Promise<void> {
  if (spawnSync('wrk', ['--version']).error) throw new Error('wrk is not installed');
  const seconds = Number(process.env.BENCH_DURATION ?? 8);
  const self = fileURLToPath(import.meta.url);
  process.stdout.write(
    `| handler | req/s | young collections | mark-compacts |\n| --- | ---: | ---: | ---: |\n`,
  );
  for (const mode of Object.keys(VARIANTS) as Variant[]) {
    const child = spawn(process.execPath, ['--import', 'tsx', self], {
      env: { ...process.env, PROTOTYPES_VARIANT: mode },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    while (!/PORT \d+/.test(out)) await new Promise((resolve) => setTimeout(resolve, 50));
    const port = /PORT (\d+)/.exec(out)![1];
    const wrk = spawnSync('wrk', ['-t1', '-c50', `-d${seconds}s`, `http://127.0.0.1:${port}/`], {
      encoding: 'utf8',
    });
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(wrk.stdout)?.[1] ?? '?';
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const gc = JSON.parse(/GC (.*)/.exec(out)?.[1] ?? '{}') as {
      young?: number;
      markCompact?: number;
    };
    process.stdout.write(
      `| ${VARIANTS[mode]} | ${Math.round(Number(rps))} | ${gc.young} | ${gc.markCompact} |\n`,
    );
  }
}
