import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into the service's dist/console, served at /admin (src/http/console.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // No inline scripts or modulepreload polyfill: the CSP allows scripts from this origin only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    rollupOptions: {
      // React Query marks its hooks "use client" for server-component bundlers; a SPA has none.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
