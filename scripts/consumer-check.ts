import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appRouter } from '../routers/index.js';
import { listProcedures } from '../src/trpc/procedures.js';

/**
 * `npm run consumer:check`: proves that a neighbouring TypeScript project can
 * use the client package (client/, `user-profile-service-client`) from its
 * packed tarball alone, and that it works against a live service.
 *
 * 1. Builds the client (`npm run build -w client`: the router's declarations
 *    and the client factory) and packs it (`npm pack -w client`).
 * 2. Copies test/consumer/ to a temporary directory, installs its own
 *    dependencies (`npm ci`: only `typescript`) and then the tarball, which
 *    brings `@trpc/client`, `eventsource` and its peer `@trpc/server` and
 *    nothing of the service's dependencies.
 * 3. Checks that the package's declarations import only the packages it
 *    declares (dependencies and peerDependencies), then type-checks the
 *    fixture with its own strict tsconfig (`exactOptionalPropertyTypes`,
 *    bundler resolution, `skipLibCheck: false`, so a declaration importing
 *    kysely or express fails with TS2307 instead of turning into `any`) and
 *    checks it calls every procedure of `appRouter`.
 * 4. Starts the service (embedded database, development identity provider),
 *    mints a development token and runs the fixture's live.ts with Node: a
 *    query, a mutation and a subscription receiving the mutation's events.
 * 5. Plants a server import (`kysely`) in the router declarations and
 *    expects the type check to fail with TS2307: the check catches a leak.
 * 6. Replaces the router declarations with `type AppRouter = any` and
 *    expects the type check to fail: the fixture's `@ts-expect-error`s are
 *    what catches it.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(ROOT, 'test/consumer');
const PACKAGE = 'user-profile-service-client';
/** The router's declarations in the package (client/rollup.config.mjs writes them). */
const ROUTER_DECLARATIONS = 'dist/app-router.d.ts';

function run(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env } : {}),
  });
}

function typecheck(consumer: string): { ok: boolean; output: string } {
  try {
    return {
      ok: true,
      output: run('node', ['node_modules/typescript/bin/tsc', '-p', '.'], consumer),
    };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

/**
 * Every package a declaration file of the installed client imports that the
 * client does not declare (dependencies, peerDependencies): a server type
 * that leaked into the package. `#app-router` is the package's own.
 */
async function undeclaredImports(installed: string, files: string[]): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const found: string[] = [];
  for (const file of files.filter((path) => path.endsWith('.d.ts'))) {
    const text = await readFile(join(installed, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)) {
      if (!specifier || specifier.startsWith('.') || specifier === '#app-router') continue;
      const name = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0]!;
      if (!declared.has(name)) found.push(`${file}: ${specifier}`);
    }
  }
  return found;
}

/** The service on the embedded database in `dataDir`, on an ephemeral port. */
async function startService(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${stderr}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const entry = (() => {
          try {
            return JSON.parse(line) as { msg?: string; port?: number };
          } catch {
            return {};
          }
        })();
        if (entry.msg === 'listening' && entry.port) {
          clearTimeout(timer);
          resolve(entry.port);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}: ${stderr}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'consumer-check-'));
  let service: ChildProcess | undefined;
  try {
    console.log('== client package');
    run('npm', ['run', '-s', 'build', '-w', 'client'], ROOT);
    const [packed] = JSON.parse(
      run(
        'npm',
        ['pack', '-w', 'client', '--json', '--ignore-scripts', '--pack-destination', work],
        ROOT,
      ),
    ) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error('npm pack wrote nothing');
    console.log(`${packed.filename}: ${packed.files.length} files`);

    console.log('== consumer install (its own typescript, then the tarball)');
    const consumer = join(work, 'consumer');
    await cp(FIXTURE, consumer, {
      recursive: true,
      filter: (source) => !source.includes('node_modules') && !source.includes('/out'),
    });
    const quiet = ['--no-audit', '--no-fund', '--prefer-offline'];
    run('npm', ['ci', ...quiet], consumer);
    run('npm', ['install', '--no-save', ...quiet, join(work, packed.filename)], consumer);
    const installed = join(consumer, 'node_modules', PACKAGE);

    console.log('== declarations import only what the package declares');
    const undeclared = await undeclaredImports(
      installed,
      packed.files.map(({ path }) => path),
    );
    if (undeclared.length > 0) {
      throw new Error(
        `the client's declarations import undeclared packages:\n${undeclared.join('\n')}`,
      );
    }

    console.log('== consumer typecheck (strict, skipLibCheck false)');
    const result = typecheck(consumer);
    if (!result.ok) throw new Error(`the consumer fixture does not type-check:\n${result.output}`);

    console.log('== every procedure called');
    const source = await readFile(join(consumer, 'every-procedure.ts'), 'utf8');
    const missing = listProcedures(appRouter)
      .map(({ path }) => path)
      .filter((name) => !source.includes(`api.${name}.`));
    if (missing.length > 0) {
      throw new Error(
        `test/consumer/every-procedure.ts does not call ${missing.join(', ')}: add a function per procedure`,
      );
    }

    console.log('== a call against a live service (live.ts, run with Node)');
    run('node', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.run.json'], consumer);
    const started = await startService(join(work, 'data'));
    service = started.child;
    const token = run(
      process.execPath,
      ['--import', 'tsx', 'scripts/token.ts', 'consumer-check'],
      ROOT,
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'development',
        DATA_DIR: join(work, 'data'),
      },
    ).trim();
    const output = run('node', ['out/live.js'], consumer, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SERVICE_URL: started.url,
      SERVICE_TOKEN: token,
    });
    console.log(output.trim());
    await stopService(service);
    service = undefined;

    console.log('== a server import leaked into the declarations must fail');
    const declarations = join(installed, ROUTER_DECLARATIONS);
    const original = await readFile(declarations, 'utf8');
    await writeFile(
      declarations,
      `import type { Kysely } from 'kysely';\nexport type Leaked = Kysely<object>;\n${original}`,
    );
    const leaked = typecheck(consumer);
    if (leaked.ok)
      throw new Error('the fixture type-checks with a kysely import in the declarations');
    if (!leaked.output.includes("error TS2307: Cannot find module 'kysely'")) {
      throw new Error(`expected TS2307 for kysely, got:\n${leaked.output}`);
    }
    const leakedUndeclared = await undeclaredImports(installed, [ROUTER_DECLARATIONS]);
    if (!leakedUndeclared.some((entry) => entry.endsWith(': kysely'))) {
      throw new Error('the declaration scan did not report the planted kysely import');
    }
    console.log('a kysely import in the declarations fails with TS2307, as expected');

    console.log('== AppRouter degraded to any must fail');
    await writeFile(declarations, 'export type AppRouter = any;\nexport type Issue = any;\n');
    const degraded = typecheck(consumer);
    if (degraded.ok) throw new Error('the fixture type-checks against AppRouter = any');
    if (!degraded.output.includes("Unused '@ts-expect-error' directive")) {
      throw new Error(`expected unused @ts-expect-error errors, got:\n${degraded.output}`);
    }
    const errors = degraded.output.split('\n').filter((line) => line.includes('error TS'));
    console.log(`${errors.length} type errors against AppRouter = any, as expected`);
    console.log('consumer check passed');
  } finally {
    if (service) await stopService(service);
    await rm(work, { recursive: true, force: true });
  }
}

await main();
