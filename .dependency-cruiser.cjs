/**
 * Import boundaries, checked by `npm run lint` (dependency-cruiser). Arrows
 * point down only: db/ ← src/domain, src/services ← routers/ ← src/app.ts.
 * test/lint/import-boundaries.test.ts runs it on the tree and on
 * test/lint/planted/ (one violation per rule), which is left out here.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'db-imports-nothing-above',
      severity: 'error',
      comment:
        'db/ is the ground floor: row types, queries and migrations import nothing from src/ or routers/.',
      from: { path: '^db/' },
      to: { path: '^(src|routers)/' },
    },
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment: 'A migration never imports application code, so it means the same thing forever.',
      from: { path: '^db/migrations/' },
      to: { path: '^(db|src|routers)/', pathNot: '^db/migrations/' },
    },
    {
      name: 'only-app-imports-routers',
      severity: 'error',
      comment:
        'src/app.ts is the composition root: the faces and the OpenAPI builder receive the router.',
      from: { path: '^src/', pathNot: '^src/app\\.ts$' },
      to: { path: '^routers/' },
    },
    {
      name: 'domain-and-services-stay-below-the-faces',
      severity: 'error',
      comment: 'Domain rules and services know nothing of HTTP, tRPC or the app.',
      from: { path: '^src/(domain|services)/' },
      to: { path: '^src/(http|trpc)/|^src/(app|server|openapi[-a-z]*)\\.ts$' },
    },
    {
      name: 'no-trpc-internals',
      severity: 'error',
      comment:
        "tRPC's unstable-core-do-not-import is not a public API: use @trpc/server and @trpc/server/http.",
      from: {},
      to: { path: 'unstable-core-do-not-import' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other cannot be read (or changed) one at a time.',
      from: { path: '^(src|routers|db)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Built output is not source: dist/, and the client workspace's client/dist/ (also
    // when reached through node_modules' link to the workspace). test/lint/planted/ breaks
    // every rule on purpose.
    exclude: { path: '^(node_modules|dist|coverage)/|(^|/)client/dist/|^test/lint/planted/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
