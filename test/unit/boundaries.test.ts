import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run lint` enforces the import boundaries (.dependency-cruiser.cjs).
 * This proves it fails: a copy of the tree gets one forbidden import per rule,
 * and `npm run lint:imports` (which `npm run lint` runs) must exit non-zero
 * naming each rule and file; the same copy without them must pass.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COPIED = [
  ...['src', 'routers', 'db', 'scripts', 'bench', 'test'],
  ...['package.json', 'tsconfig.json', '.dependency-cruiser.cjs'],
];
/** Not part of the checked tree: generated results and installed packages. */
const SKIPPED = new Set(['results', 'node_modules']);

/** One forbidden import per rule: [rule, file, line appended to it]. */
const VIOLATIONS: [rule: string, file: string, line: string][] = [
  ['db-imports-nothing-above', 'db/schema.ts', "import type { Config } from '../src/config.js';"],
  [
    'only-app-imports-routers',
    'src/http/docs.ts',
    "import type { AppRouter } from '../../routers/index.js';",
  ],
  [
    'no-trpc-internals',
    'src/logger.ts',
    "import type { AnyProcedure } from '@trpc/server/unstable-core-do-not-import';",
  ],
  [
    'migrations-are-frozen',
    'db/migrations/20261122T1730_users_profiles.ts',
    "import type { Database } from '../schema.js';",
  ],
  [
    'domain-and-services-stay-below-the-faces',
    'src/domain/cursor.ts',
    "import type { Context } from '../trpc/context.js';",
  ],
  ['no-circular', 'src/app-error.ts', "import type { ErrorBody } from './error-mapping.js';"],
];

let copy: string;

beforeAll(async () => {
  copy = await mkdtemp(path.join(tmpdir(), 'boundaries-'));
  for (const entry of COPIED) {
    await cp(path.join(ROOT, entry), path.join(copy, entry), {
      recursive: true,
      filter: (source) => !SKIPPED.has(path.basename(source)),
    });
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

function lintImports(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '-s', 'lint:imports'], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('npm run lint: import boundaries', () => {
  it('runs the boundary check as part of npm run lint', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.lint).toContain('npm run -s lint:imports');
    expect(pkg.scripts['lint:imports']).toMatch(/^depcruise src routers db /);
  });

  it('passes on the tree as it is', async () => {
    const { code, output } = await lintImports(copy);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  }, 120_000);

  it('fails naming each rule and file when each boundary is crossed', async () => {
    for (const [, file, line] of VIOLATIONS) {
      await appendFile(path.join(copy, file), `${line}\n`);
    }
    const { code, output } = await lintImports(copy);
    expect(code).not.toBe(0);
    for (const [rule, file] of VIOLATIONS) {
      expect(output).toMatch(new RegExp(`error ${rule}: ${file.replace(/\./g, '\\.')} →`));
    }
    // A circle is reported once per way round it, so there are at least as many violations.
    const count = Number(/(\d+) dependency violations/.exec(output)?.[1]);
    expect(count).toBeGreaterThanOrEqual(VIOLATIONS.length);
  }, 120_000);
});
