import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { ServiceAdapter } from './adapter.js';

export interface PGliteDialectConfig {
  /** An open (or opening) PGlite. The dialect owns it: `db.destroy()` closes it. */
  pglite: PGlite;
}

/**
 * Kysely dialect for PGlite: PostgreSQL compiled to WASM, running in this
 * process. SQL and introspection are PostgreSQL's own, the adapter is the
 * service's (db/adapter.ts); the driver differs, because PGlite is a single
 * session rather than a pool.
 */
export class PGliteDialect implements Dialect {
  readonly #config: PGliteDialectConfig;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#config.pglite);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new ServiceAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

/**
 * First-come, first-served lock. PGlite has one session, so BEGIN ... COMMIT of
 * two Kysely transactions would otherwise interleave on it and become one
 * muddled transaction; holding the lock from acquire to release makes each
 * Kysely connection (and so each transaction) exclusive, like a pool of one.
 */
class Mutex {
  #locked = false;
  readonly #waiters: Array<() => void> = [];

  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  unlock(): void {
    const next = this.#waiters.shift();
    // Hand the lock straight to the next waiter so nobody can jump the queue.
    if (next) next();
    else this.#locked = false;
  }
}

class PGliteDriver implements Driver {
  readonly #pglite: PGlite;
  readonly #connection: PGliteConnection;
  readonly #mutex = new Mutex();
  #destroyed = false;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
    this.#connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#destroyed) throw new Error('PGlite driver has already been destroyed');
    await this.#mutex.lock();
    return this.#connection;
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    let statement = 'start transaction';
    if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) statement += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(statement));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(
      CompiledQuery.raw(`rollback to savepoint ${quoteIdentifier(name)}`),
    );
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdentifier(name)}`));
  }

  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    // Like pg's pool.end(): wait for the connection in use to come back, so an
    // in-flight transaction finishes (or rolls back) before the files close.
    await this.#mutex.lock();
    try {
      if (!this.#pglite.closed) await this.#pglite.close();
    } finally {
      this.#mutex.unlock();
    }
  }
}

// Commands whose row count Kysely reports as numAffectedRows (as PostgresDriver does).
const WRITE_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGlite;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Captured before the await: PGlite's own stack shows only its parser.
    const callSite = new Error();
    try {
      const result = await this.#pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters], {
        rowMode: 'object',
      });
      // `rowCount` is this statement's count; `affectedRows` is cumulative.
      const command = result.command?.toUpperCase();
      return {
        rows: result.rows,
        numAffectedRows:
          command && WRITE_COMMANDS.has(command)
            ? BigInt(result.rowCount ?? result.affectedRows ?? 0)
            : undefined,
      };
    } catch (error) {
      throw normaliseError(error, callSite);
    }
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported by the PGlite dialect');
  }
}

/**
 * PGlite's DatabaseError already carries the same fields as pg's (`code` with
 * the SQLSTATE, `constraint`, `table`, `detail`, ...), so callers can test
 * `err.code === '23505'` on both. It also carries the statement's `params`
 * (user data that must not reach logs) and `query`/`queryOptions`, which pg's
 * errors do not have: drop them so both drivers' errors look and log alike.
 */
function normaliseError(error: unknown, callSite: Error): unknown {
  if (!(error instanceof Error)) return error;
  const extra = error as Error & { params?: unknown; query?: unknown; queryOptions?: unknown };
  delete extra.params;
  delete extra.query;
  delete extra.queryOptions;
  if (error.stack && callSite.stack) {
    error.stack += `\n${callSite.stack.split('\n').slice(1).join('\n')}`;
  }
  return error;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
