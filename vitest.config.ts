import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/sequencer.js';

/**
 * Files that run in a fresh module graph of their own (vitest's default
 * isolation). Every other file shares its worker's loaded modules with the
 * files the worker ran before it (`isolate: false`), so the app's modules are
 * imported once per worker, not once per file: docs/decisions/0120-test-projects.md.
 */
const ISOLATED: string[] = [
  // Checks that the process-wide metrics registry (src/metrics.ts) holds no
  // replica series once its replicas are gone.
  'test/db/read-replica/read-replica.test.ts',
];

export default defineConfig({
  // The README's client examples import the client package; tests run its source.
  resolve: {
    alias: {
      'user-profile-service-client': fileURLToPath(
        new URL('./client/src/index.ts', import.meta.url),
      ),
    },
  },
  test: {
    environment: 'node',
    // Builds the migrated PGlite template once per project (see test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file opens its own PGlite (~300 MB) and service processes;
    // two files at a time suits a 2-core machine. Forks, not threads:
    // PGlite's WASM memory and a crash stay in one process.
    pool: 'forks',
    maxWorkers: 2,
    // The longest files first, so both workers finish together (docs/decisions/0123-ci-time.md).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED },
      },
    ],
  },
});
