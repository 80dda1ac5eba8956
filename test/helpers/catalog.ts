import { DEFAULT_CATALOG } from '../../db/migrations/20261126T1100_activity_catalog.js';
import { parseCatalog, type Catalog } from '../../src/domain/catalog.js';

/** The default catalog as every instance loads it from a fresh database. */
export function defaultCatalog(extra: readonly unknown[] = []): Catalog {
  const rows = [...DEFAULT_CATALOG, ...extra].map((definition) => {
    const { kind, key } = definition as { kind: string; key: string };
    return { kind, key, version: 1, definition, retired: false };
  });
  const { catalog, invalid } = parseCatalog(1, rows);
  if (invalid.length > 0) throw new Error(`invalid definitions: ${JSON.stringify(invalid)}`);
  return catalog;
}
