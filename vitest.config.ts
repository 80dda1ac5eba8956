import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    include: ['test/**/*.test.ts'],
    // Builds the migrated PGlite template once per run (see test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file opens its own PGlite (~300 MB, ~800 MB when one is
    // created from scratch) and service processes; two files at a time suits
    // a 2-core machine. Forks, not threads: PGlite's WASM memory and a crash
    // stay in one process.
    pool: 'forks',
    maxWorkers: 2,
  },
});
