import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appRouter } from '../routers/index.js';
import { listProcedures } from '../src/trpc/procedures.js';

/**
 * `npm run consumer:check`: proves that a neighbouring TypeScript project can
 * use `type AppRouter` from the published declarations alone.
 *
 * 1. Emits the declarations (`npm run build:types`) and packs the service
 *    (`npm pack`, the files package.json `files` lists).
 * 2. Copies test/consumer/ to a temporary directory, installs its own
 *    dependencies (`npm ci`: `@trpc/client` and its peers, nothing else) and
 *    unpacks the tarball as node_modules/user-profile-service without the
 *    service's dependencies: the strictest case, where any type that leaked
 *    from express, kysely or zod would turn into `any`.
 * 3. Type-checks the fixture with its own strict tsconfig
 *    (`exactOptionalPropertyTypes`, bundler resolution, `skipLibCheck`).
 * 4. Checks the fixture calls every procedure of `appRouter`.
 * 5. Replaces the declarations with `type AppRouter = any` and expects the
 *    type check to fail: the fixture's `@ts-expect-error`s are what catches it.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(ROOT, 'test/consumer');

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
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

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'consumer-check-'));
  try {
    console.log('== declarations and package');
    run('npm', ['run', '-s', 'build:types'], ROOT);
    const [packed] = JSON.parse(
      run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT),
    ) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error('npm pack wrote nothing');
    console.log(`${packed.filename}: ${packed.files.length} files`);

    console.log('== consumer install (@trpc/client and its peers only)');
    const consumer = join(work, 'consumer');
    await cp(FIXTURE, consumer, {
      recursive: true,
      filter: (source) => !source.includes('node_modules'),
    });
    run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], consumer);
    const installed = join(consumer, 'node_modules/user-profile-service');
    await mkdir(installed, { recursive: true });
    run(
      'tar',
      ['-xzf', join(work, packed.filename), '-C', installed, '--strip-components=1'],
      ROOT,
    );

    console.log('== consumer typecheck');
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

    console.log('== AppRouter degraded to any must fail');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      types: string;
    };
    await writeFile(join(installed, manifest.types), 'export type AppRouter = any;\n');
    const degraded = typecheck(consumer);
    if (degraded.ok) throw new Error('the fixture type-checks against AppRouter = any');
    if (!degraded.output.includes("Unused '@ts-expect-error' directive")) {
      throw new Error(`expected unused @ts-expect-error errors, got:\n${degraded.output}`);
    }
    const errors = degraded.output.split('\n').filter((line) => line.includes('error TS'));
    console.log(`${errors.length} type errors against AppRouter = any, as expected`);
    console.log('consumer check passed');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
