import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run lint` enforces the import boundaries of .dependency-cruiser.cjs
 * (`npm run lint:imports`). This runs the same linter (dependency-cruiser's
 * API, the same configuration and tsconfig) on the tree, which must pass, and
 * on test/lint/planted/: a small tree laid out like ours, with one forbidden
 * import per rule beside allowed ones, which must fail with exactly those.
 * The real configuration leaves planted/ out of `npm run lint:imports`.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLANTED = fileURLToPath(new URL('./planted/', import.meta.url));

let options: ICruiseOptions;
let scripts: Record<string, string>;

beforeAll(async () => {
  const pkg = JSON.parse(await readFile(`${ROOT}package.json`, 'utf8')) as {
    scripts: Record<string, string>;
  };
  scripts = pkg.scripts;
  options = await extractDepcruiseOptions(`${ROOT}.dependency-cruiser.cjs`);
});

/** The directories `npm run lint:imports` cruises (its command line, without the flags). */
function lintedDirectories(): string[] {
  const [command, ...args] = (scripts['lint:imports'] ?? '').split(' ');
  expect(command).toBe('depcruise');
  return args.slice(0, args.indexOf('--config'));
}

async function lint(baseDir: string, directories: string[]): Promise<ICruiseResult> {
  const { output } = await cruise(
    directories,
    { ...options, baseDir },
    {},
    { tsConfig: extractTSConfig(`${ROOT}tsconfig.json`) },
  );
  return output as ICruiseResult;
}

describe('npm run lint: import boundaries', () => {
  it('runs the boundary check as part of npm run lint, on every folder of code', () => {
    expect(scripts.lint).toContain('npm run -s lint:imports');
    expect(scripts['lint:imports']).toContain('--config .dependency-cruiser.cjs');
    expect(lintedDirectories()).toEqual(['src', 'routers', 'db', 'scripts', 'bench', 'test']);
  });

  it('passes on the tree as it is', async () => {
    const result = await lint(ROOT, lintedDirectories());
    expect(result.summary.violations).toEqual([]);
    // It did read the tree (and left the planted one out).
    const sources = result.modules.map((module) => module.source);
    expect(sources).toContain('src/app.ts');
    expect(sources).toContain('db/migrations/index.ts');
    expect(sources.some((source) => source.startsWith('test/lint/planted/'))).toBe(false);
  }, 120_000);

  it('fails on each planted violation, naming its rule and files, and on nothing else', async () => {
    const result = await lint(PLANTED, ['db', 'src', 'routers']);
    const found = result.summary.violations
      // A package is named by its path from the planted tree: keep the part from node_modules/.
      .map(({ rule, from, to }) => `${rule.name}: ${from} → ${to.replace(/^(\.\.\/)+/, '')}`)
      .sort();
    expect(found).toEqual([
      'db-imports-nothing-above: db/schema.ts → src/config.ts',
      'domain-and-services-stay-below-the-faces: src/domain/cursor.ts → src/trpc/context.ts',
      'migrations-are-frozen: db/migrations/20260101T0000_first.ts → db/schema.ts',
      'no-circular: src/app-error.ts → src/error-mapping.ts',
      'no-trpc-internals: src/logger.ts → node_modules/@trpc/server/dist/unstable-core-do-not-import.d.mts',
      'only-app-imports-routers: src/http/docs.ts → routers/index.ts',
    ]);
    expect(result.summary.error).toBe(found.length);
  }, 120_000);
});
