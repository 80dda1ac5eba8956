import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * `npm run lint:docs` checks every relative link of README.md and docs/:
 * the file (or folder) must exist and an `#anchor` must name a heading of
 * that file by GitHub's slug rule (remark-validate-links, configured in
 * .remarkrc.json). This runs the same command on the tree, which must pass,
 * and on test/lint/planted-docs/, whose broken links it must report, each
 * one and nothing else.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REMARK = fileURLToPath(new URL('../../node_modules/.bin/remark', import.meta.url));

interface Report {
  failed: boolean;
  problems: string[];
}

async function checkLinks(paths: string[]): Promise<Report> {
  const args = ['--no-color', '--no-stdout', '--quiet', '--frail', ...paths];
  const output = await promisify(execFile)(REMARK, args, { cwd: ROOT }).then(
    ({ stderr }) => ({ failed: false, stderr }),
    (error: { code?: number; stderr?: string }) => {
      if (error.code !== 1 || error.stderr === undefined) throw error;
      return { failed: true, stderr: error.stderr };
    },
  );
  const problems = [
    ...output.stderr.matchAll(
      /^(\d+):\S+\s+(?:warning|error)\s+(.+?)\s+\S+\s+(remark-validate-links:\S+)$/gm,
    ),
  ].map((match) => `${match[1]} ${match[3]}: ${match[2]}`);
  return { failed: output.failed, problems };
}

describe('links in the documentation', () => {
  it('README.md and docs/ link only to files and headings that exist', async () => {
    const scripts = (await import('../../package.json', { with: { type: 'json' } })).default
      .scripts as Record<string, string>;
    expect(scripts['lint:docs']).toContain('README.md docs');
    expect(await checkLinks(['README.md', 'docs'])).toEqual({ failed: false, problems: [] });
  });

  it('fail the check on a link to a missing heading, file or folder, and only on those', async () => {
    expect(await checkLinks(['test/lint/planted-docs'])).toEqual({
      failed: true,
      problems: [
        '14 remark-validate-links:missing-heading-in-file: Cannot find heading for `#no-such-place` in `OTHER.md`',
        '16 remark-validate-links:missing-heading: Cannot find heading for `#no-such-heading`',
        '16 remark-validate-links:missing-file: Cannot find file `MISSING.md`',
        '17 remark-validate-links:missing-file: Cannot find file `missing`',
      ],
    });
  });
});

describe('the shape of the documentation (docs/decisions/0027-documentation-layout.md)', () => {
  it('keeps README.md within 250 lines', async () => {
    const readme = await readFile(`${ROOT}README.md`, 'utf8');
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(250);
  });

  it('keeps every decision record under 60 lines, with its context, decision and consequences', async () => {
    const records = (await readdir(`${ROOT}docs/decisions`)).filter((name) => name.endsWith('.md'));
    expect(records.length).toBeGreaterThan(0);
    for (const name of records) {
      expect(name, 'named NNNN-title.md').toMatch(/^\d{4}-[a-z0-9-]+\.md$/);
      const text = await readFile(`${ROOT}docs/decisions/${name}`, 'utf8');
      expect(text.split('\n').length - 1, name).toBeLessThan(60);
      const headings = text.match(/^## .+$/gm) ?? [];
      expect(headings, name).toEqual(['## Context', '## Decision', '## Consequences']);
    }
  });
});
