/**
 * `npx tsx scripts/count-assertions.ts [--files]`: counts, in every `.ts` file under test/ (the test files
 * and the helpers they call), the assertion call sites — `expect(`, `expect.soft(`, `expect.poll(`, `expect.fail(`,
 * `expectTypeOf(`, `assertType(`, `assert(` and `assert.<method>(` — and the test declarations
 * (`it(`, `it.each`, `test(`, `test.each`, with `.skipIf(…)`/`.runIf(…)`/`.sequential`/`.concurrent` in
 * between). Prints one line per group (the first two path segments under test/, e.g. `operations/events`),
 * or per file with `--files`, and the totals.
 *
 * A static count, not a run: a shared suite (test/helpers/operation-suites.ts) counts its call sites once,
 * though each operation that opts in runs them. It exists so a regrouping of the tests can show that no
 * assertion was lost (issue 27).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const TEST = join(ROOT, 'test');

const ASSERTION =
  /(?<![\w.$])(?:expect(?:\.soft|\.poll|\.fail)?\s*\(|expectTypeOf\s*[<(]|assertType\s*[<(]|assert(?:\.\w+)?\s*\()/g;
/** Block comments and line comments (not the `//` of a URL), so prose such as "keep it (…)" is not counted. */
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/.*$/gm;
const TEST_DECL =
  /(?<![\w.$])(?:it|test)(?:\.(?:skipIf|runIf)\([^)]*\)|\.(?:sequential|concurrent|only|skip|fails))*(?:\.each\b|\s*\()/g;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'consumer' ? [] : walk(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Count {
  assertions: number;
  tests: number;
  files: number;
}

const byFile = new Map<string, Count>();
for (const path of walk(TEST).sort()) {
  const text = readFileSync(path, 'utf8').replace(COMMENT, '');
  byFile.set(relative(ROOT, path), {
    assertions: text.match(ASSERTION)?.length ?? 0,
    tests: text.match(TEST_DECL)?.length ?? 0,
    files: 1,
  });
}

const perFile = process.argv.includes('--files');
const groups = new Map<string, Count>();
for (const [path, count] of byFile) {
  const parts = path.split('/');
  const key = perFile ? path : parts.length > 3 ? parts.slice(1, 3).join('/') : (parts[1] ?? path);
  const sum = groups.get(key) ?? { assertions: 0, tests: 0, files: 0 };
  groups.set(key, {
    assertions: sum.assertions + count.assertions,
    tests: sum.tests + count.tests,
    files: sum.files + count.files,
  });
}

const total = [...groups.values()].reduce(
  (sum, c) => ({
    assertions: sum.assertions + c.assertions,
    tests: sum.tests + c.tests,
    files: sum.files + c.files,
  }),
  { assertions: 0, tests: 0, files: 0 },
);
const width = Math.max(...[...groups.keys()].map((k) => k.length), 5);
console.log(`${'group'.padEnd(width)}  files  tests  assertions`);
for (const [key, c] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `${key.padEnd(width)}  ${String(c.files).padStart(5)}  ${String(c.tests).padStart(5)}  ${String(c.assertions).padStart(10)}`,
  );
}
console.log(
  `${'total'.padEnd(width)}  ${String(total.files).padStart(5)}  ${String(total.tests).padStart(5)}  ${String(total.assertions).padStart(10)}`,
);
