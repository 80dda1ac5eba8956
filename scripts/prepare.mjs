/**
 * npm's `prepare` hook (runs after `npm install` / `npm ci` in this folder):
 * builds dist/ so that `npm start` (`node dist/src/server.js`, no compiler at
 * start) works right after the README's `npm install`, and the operator's
 * console (console/, Vite) into dist/console, which the service serves at /admin. Without the dev
 * dependencies (`npm ci --omit=dev`) the build cannot run (typescript may be
 * there, as @trpc/server's peer, but the @types packages are not): it says so
 * and leaves dist/ as it is (a production image copies dist/ from its build
 * stage; see Dockerfile).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const { devDependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
const needed = Object.keys(devDependencies).filter(
  (name) => name === 'typescript' || name.startsWith('@types/'),
);
const missing = needed.filter((name) => {
  try {
    require.resolve(`${name}/package.json`);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  console.log(
    `prepare: build skipped, dev dependencies not installed (${missing.join(', ')}); ` +
      'npm start needs dist/ from `npm run build`',
  );
  process.exit(0);
}
const result = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  { stdio: 'inherit' },
);
if (result.status !== 0) process.exit(result.status ?? 1);
const consoleBuild = spawnSync(
  process.execPath,
  [join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'), 'build', 'console'],
  { stdio: 'inherit' },
);
process.exit(consoleBuild.status ?? 1);
