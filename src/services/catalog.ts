import type { Kysely } from 'kysely';
import { catalogRevision, latestDefinitions } from '../../db/queries/catalog.js';
import type { Database } from '../../db/schema.js';
import { parseCatalog, type Catalog } from '../domain/catalog.js';
import type { Logger } from '../logger.js';

/**
 * This instance's copy of the catalog (docs/CATALOG.md, "How a change rolls
 * out"). A copy younger than `refreshMs` is used as it is; an older one is
 * checked against `catalog_revision` (one indexed read) and reloaded when the
 * revision moved. So a change made on any instance is in force on every
 * instance within `refreshMs` plus one request, with no restart and no
 * channel to keep open. Concurrent callers share one check.
 */
export class CatalogCache {
  private copy: { catalog: Catalog; checkedAt: number } | undefined;
  private pending: Promise<Catalog> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: { refreshMs: number; logger?: Logger; now?: () => number },
  ) {}

  /** The catalog in force: at most `refreshMs` older than the database's. */
  current(): Promise<Catalog> {
    const now = this.now();
    if (this.copy && now - this.copy.checkedAt < this.options.refreshMs) {
      return Promise.resolve(this.copy.catalog);
    }
    this.pending ??= this.refresh().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the copy: the next use reloads (after a change made through this instance). */
  invalidate(): void {
    this.copy = undefined;
  }

  private async refresh(): Promise<Catalog> {
    const checkedAt = this.now();
    if (this.copy && (await catalogRevision(this.db)) === this.copy.catalog.revision) {
      this.copy = { catalog: this.copy.catalog, checkedAt };
      return this.copy.catalog;
    }
    const { revision, rows } = await latestDefinitions(this.db);
    const { catalog, invalid } = parseCatalog(revision, rows);
    for (const row of invalid) {
      this.options.logger?.error(row, 'catalog definition no longer parses: left out');
    }
    this.copy = { catalog, checkedAt };
    return catalog;
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }
}
