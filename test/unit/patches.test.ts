import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The patches in patches/ (docs/PATCHES.md) are applied to the installed
 * packages: `npm install` / `npm ci` run them through patch-package
 * (package.json `postinstall`), which fails the install when one does not
 * apply. This fails when a patch is not applied to what is installed (the
 * postinstall was skipped, or the package was reinstalled without it), or was
 * made for another version than the one installed. Each patch's effect is
 * tested where it shows: test/platform/input/number-coercion.test.ts and
 * test/platform/http/adapter-patches.test.ts.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const PATCHES = readdirSync(`${ROOT}/patches`).filter((name) => name.endsWith('.patch'));

/** `@trpc+server+11.25.2.patch` → ['@trpc/server', '11.25.2'] (patch-package's naming). */
function packageOf(file: string): [name: string, version: string] {
  const parts = file.slice(0, -'.patch'.length).split('+');
  const version = parts.pop()!;
  return [parts.join('/'), version];
}

describe('patches/', () => {
  it('holds the patches the docs describe', () => {
    expect(PATCHES).toEqual(
      expect.arrayContaining(['trpc-to-openapi+3.3.0.patch', '@trpc+server+11.25.2.patch']),
    );
    const docs = readFileSync(`${ROOT}/docs/PATCHES.md`, 'utf8');
    for (const file of PATCHES) expect(docs).toContain(`patches/${file}`);
  });

  it.each(PATCHES)('%s is made for the installed version and is applied', async (file) => {
    const [name, version] = packageOf(file);
    const installed = JSON.parse(readFileSync(`${ROOT}/node_modules/${name}/package.json`, 'utf8'));
    expect(installed.version, `${name} is installed at another version: regenerate ${file}`).toBe(
      version,
    );
    // Undoing the patch must be possible, exactly: every hunk is in the installed files.
    await expect(
      run('git', ['apply', '--reverse', '--check', `patches/${file}`], { cwd: ROOT }),
    ).resolves.toBeDefined();
  });

  it('are applied on every install, production installs included', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
    expect(pkg.scripts.postinstall).toBe('patch-package --error-on-fail --error-on-warn');
    // `npm ci --omit=dev` runs postinstall too: patch-package must be a production dependency.
    expect(pkg.dependencies['patch-package']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.devDependencies['patch-package']).toBeUndefined();
  });
});
