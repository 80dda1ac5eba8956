/**
 * Database selection: PostgreSQL through a `pg` pool when DATABASE_URL is set,
 * otherwise an embedded PGlite persisted in `${DATA_DIR}/pgdata`.
 *
 * Value types are the same on both drivers:
 * - timestamptz (and timestamp) → JS `Date`.
 * - int8 / bigint → `string`. This is pg's default (no precision loss above
 *   2^53); PGlite would return a number (or a bigint when large), so we give it
 *   a parser that keeps the text. Hence points_ledger.id and every `count(*)`
 *   are strings on both: wrap counts in `Number()`, treat ledger ids as opaque
 *   strings.
 * - numeric (e.g. `sum()` of integers) → `string` on both (both drivers' default).
 * - int4 / int2 / float → `number`; uuid and text → `string`.
 * - Not unified, because no column uses it: `date` is a Date at local midnight
 *   on pg and at UTC midnight on PGlite. Prefer timestamptz.
 *
 * Both use CamelCasePlugin: `favoriteTeam` in TypeScript is `favorite_team` in SQL.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { CamelCasePlugin, Kysely, PostgresDialect, sql, type DialectAdapter } from 'kysely';
import pg from 'pg';
import { ServiceAdapter } from './adapter.js';
import { listenPostgres, type NotificationHandlers, type Unlisten } from './listener.js';
import { PGliteDialect } from './pglite-dialect.js';
import { ReadRouter } from './read-router.js';
import type { Database } from './schema.js';
import { CompiledStatements } from './statements.js';

export interface DatabaseOptions {
  /** PostgreSQL connection string; undefined → embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Most connections the pg pool opens (ignored by PGlite: it is one session). */
  poolMax: number;
  /** PostgreSQL `statement_timeout` for every query (pg only, see below). */
  statementTimeoutMs: number;
  /** Told when an idle pooled connection fails (e.g. PostgreSQL restarted). */
  onIdleClientError?: (error: Error) => void;
  /**
   * Where `listen` connects (PostgreSQL only); default `databaseUrl`. A
   * transaction pooler cannot LISTEN, so point this at PostgreSQL directly.
   */
  listenUrl?: string | undefined;
  /**
   * Run the compiled statements (db/statements.ts) as named (server-side
   * prepared) statements; default true. PostgreSQL only.
   */
  preparedStatements?: boolean;
  /** Told once when a pool stops naming statements (see `namingClient`). */
  onPreparedStatementsOff?: (error: Error) => void;
  /**
   * A streaming replica of `databaseUrl` for reads that may lag
   * (DATABASE_READ_URL; db/read-router.ts). PostgreSQL only.
   */
  replica?: ReplicaOptions | undefined;
  /** Told how long each query waited for a connection of the primary's or the replica's pool (pg only). */
  onPoolAcquire?: (seconds: number, pool: PoolName) => void;
}

export interface ReplicaOptions {
  url: string;
  /** Reads go to the primary while the replica may be staler than this. */
  maxLagMs: number;
  /** How long a fan's own read waits for the replica to replay their write. */
  waitMs: number;
  /** How often the replica's lag is measured. */
  pollMs: number;
  /** Told when the replica stops or starts serving reads. */
  onChange?: (change: { serving: boolean; reason: string; error?: unknown }) => void;
}

/** The pools a handle may hold: the primary's, and the replica's with DATABASE_READ_URL. */
export type PoolName = 'primary' | 'replica';

/** A pool's connections (pg's totalCount, idleCount) and the queries waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** The statements compiled once on `db` (the write path's); on PostgreSQL, named. */
  statements: CompiledStatements;
  kind: 'postgres' | 'pglite';
  /** Which database each read uses: the replica's or `db` (db/read-router.ts). */
  reads: ReadRouter;
  /** Resolves when the database answers `select 1`; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Receives every NOTIFY on `channel`, delivered on commit. PostgreSQL: one
   * dedicated connection per call (call it once per process). PGlite: the
   * embedded session's own LISTEN.
   */
  listen(channel: string, handlers: NotificationHandlers): Promise<Unlisten>;
  /** Ends the pool or closes PGlite. Safe to call more than once. */
  close(): Promise<void>;
  /** The pg pool's use now; undefined on PGlite (one session, no pool). */
  poolStats(): Partial<Record<PoolName, PoolStats>>;
}

const PG_INT8_OID = 20;

export async function createDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl
    ? createPostgres(options.databaseUrl, options)
    : createPGlite(options.dataDir);
}

/**
 * pg's client, running the statements of `statements` as named statements.
 * One refused (CompiledStatements.refused) runs again unnamed, and nothing
 * is named from then on: such a statement runs alone, outside any
 * transaction, so the retry is safe.
 */
function namingClient(statements: () => CompiledStatements): typeof pg.Client {
  return class NamingClient extends pg.Client {
    // pg's query() has callback and config overloads; only Kysely's
    // (text, values) call is ever named, every other call passes through.
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      const name =
        typeof text === 'string' && callback === undefined ? statements().nameOf(text) : undefined;
      if (name === undefined) return (super.query as (...a: unknown[]) => unknown)(...args);
      return super.query({ name, text, values }).catch((error: unknown) => {
        if (!statements().refused(error)) throw error;
        return super.query(text, values);
      });
    }
  };
}

/**
 * pg's pool, telling `onAcquire` how long each promise checkout (Kysely's:
 * every query and transaction) waited for a connection.
 */
function timedPool(onAcquire: DatabaseOptions['onPoolAcquire'], name: PoolName): typeof pg.Pool {
  if (!onAcquire) return pg.Pool;
  return class TimedPool extends pg.Pool {
    override connect(...args: any[]): any {
      if (args.length > 0) return (super.connect as (...a: unknown[]) => unknown)(...args);
      const started = performance.now();
      return super.connect().then((client) => {
        onAcquire((performance.now() - started) / 1000, name);
        return client;
      });
    }
  };
}

/** node-postgres with the service's adapter (db/adapter.ts: a pooler-safe migration lock). */
class ServiceDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new ServiceAdapter();
  }
}

async function createPostgres(
  databaseUrl: string,
  options: DatabaseOptions,
): Promise<DatabaseHandle> {
  const pool: pg.Pool = new (timedPool(options.onPoolAcquire, 'primary'))({
    connectionString: databaseUrl,
    max: options.poolMax,
    statement_timeout: options.statementTimeoutMs,
    // No JIT: it compiles each execution of a prepared statement anew, which
    // costs more than any statement of this service runs (PgBouncer ignores
    // the option, .ci/run).
    options: '-c jit=off',
    // Fail fast (→ 503 UNAVAILABLE) rather than queue forever when PostgreSQL
    // is unreachable or every connection is busy.
    connectionTimeoutMillis: 5000,
    // The pool's clients are created after `statements` below.
    Client: namingClient(() => statements),
  });
  // An idle client whose connection dies (PostgreSQL restarted, network cut)
  // emits 'error' on the pool; unhandled, that would crash the process. The
  // pool has already discarded the client and the next query opens a new one.
  pool.on('error', (error) => options.onIdleClientError?.(error));
  // A client checked out of the pool has no pool listener: if its connection
  // dies between two queries of a transaction, 'error' would go unhandled and
  // crash the process. The query in progress (or the next one) fails on its
  // own and the request answers 503, so a listener that only reports is enough.
  pool.on('connect', (client) => {
    client.on('error', (error) => options.onIdleClientError?.(error));
  });
  const db = new Kysely<Database>({
    dialect: new ServiceDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  const statements: CompiledStatements = new CompiledStatements(db, {
    naming: options.preparedStatements ?? true,
    onNamingOff: options.onPreparedStatementsOff,
  });
  const listenUrl = options.listenUrl ?? databaseUrl;
  const replica = options.replica && createReplica(options.replica, options);
  const reads = new ReadRouter({
    primary: db,
    replica: replica?.db,
    maxLagMs: options.replica?.maxLagMs ?? 0,
    waitMs: options.replica?.waitMs ?? 0,
    pollMs: options.replica?.pollMs ?? 0,
    onChange: options.replica?.onChange,
  });
  await reads.start();
  return handle(
    db,
    statements,
    'postgres',
    reads,
    async () => {
      await replica?.db.destroy();
    },
    (channel, handlers) => listenPostgres(listenUrl, channel, handlers),
    () => ({
      primary: statsOf(pool),
      ...(replica && { replica: statsOf(replica.pool) }),
    }),
  );
}

function statsOf(pool: pg.Pool): PoolStats {
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** The replica's own pool: plain statements (nothing named), a short connect timeout. */
function createReplica(replica: ReplicaOptions, options: DatabaseOptions) {
  const pool = new (timedPool(options.onPoolAcquire, 'replica'))({
    connectionString: replica.url,
    max: options.poolMax,
    statement_timeout: options.statementTimeoutMs,
    options: '-c jit=off',
    // A replica that does not answer sends reads to the primary: fail fast.
    connectionTimeoutMillis: 1000,
  });
  pool.on('error', (error) => options.onIdleClientError?.(error));
  pool.on('connect', (client) => {
    client.on('error', (error) => options.onIdleClientError?.(error));
  });
  return {
    pool,
    db: new Kysely<Database>({
      dialect: new ServiceDialect({ pool }),
      plugins: [new CamelCasePlugin()],
    }),
  };
}

/**
 * Creating a new PGlite database costs seconds and most of a gigabyte;
 * reopening one costs a fraction of that (about 0.4 s and 300 MB). So the data
 * dir is kept on disk and reused; it also survives a kill -9 (WAL replay).
 *
 * statement_timeout is not applied: PGlite runs PostgreSQL single-threaded in
 * WASM without the timer signal PostgreSQL cancels statements with, so
 * `SET statement_timeout = 100; SELECT pg_sleep(1)` just sleeps the full second.
 */
async function createPGlite(dataDir: string): Promise<DatabaseHandle> {
  const pgdata = path.join(dataDir, 'pgdata');
  await mkdir(pgdata, { recursive: true });
  const unlock = await lockDataDir(pgdata);
  let pglite: PGlite;
  try {
    // int8 as text, as pg returns it (see the top of this file).
    pglite = await PGlite.create(pgdata, { parsers: { [PG_INT8_OID]: (value: string) => value } });
  } catch (error) {
    await unlock();
    throw error;
  }
  const db = new Kysely<Database>({
    dialect: new PGliteDialect({ pglite }),
    plugins: [new CamelCasePlugin()],
  });
  // PGlite's listen() runs LISTEN on the one shared session: holding a Kysely
  // connection meanwhile keeps it out of any transaction in progress.
  const onSession = <T>(work: () => Promise<T>) => db.connection().execute(work);
  const statements = new CompiledStatements(db, { naming: false });
  const reads = new ReadRouter({ primary: db, maxLagMs: 0, waitMs: 0, pollMs: 0 });
  return handle(db, statements, 'pglite', reads, unlock, async (channel, handlers) => {
    const unsubscribe = await onSession(() => pglite.listen(channel, handlers.onNotification));
    return () => (pglite.closed ? Promise.resolve() : onSession(() => unsubscribe()));
  });
}

function handle(
  db: Kysely<Database>,
  statements: CompiledStatements,
  kind: DatabaseHandle['kind'],
  reads: ReadRouter,
  afterClose: () => Promise<void>,
  listen: DatabaseHandle['listen'],
  poolStats: DatabaseHandle['poolStats'] = () => ({}),
): DatabaseHandle {
  let closing: Promise<void> | undefined;
  return {
    db,
    statements,
    kind,
    reads,
    listen,
    poolStats,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close() {
      closing ??= reads
        .stop()
        .then(() => db.destroy())
        .finally(afterClose);
      return closing;
    },
  };
}

/**
 * PGlite does not stop a second process from opening the same data dir, and
 * two PostgreSQL instances on one data dir corrupt it (seen: both open without
 * complaint). A pid lock file turns that into a clear error, e.g. for
 * `npm run migrate` while the service runs on the embedded database.
 */
const lockedHere = new Set<string>();

async function lockDataDir(pgdata: string): Promise<() => Promise<void>> {
  const lockFile = `${pgdata}.lock`;
  const inUse = (pid: number) =>
    new Error(
      `The embedded database in ${pgdata} is in use by process ${pid}. PGlite allows one ` +
        'process at a time: stop it first, or set DATABASE_URL to use PostgreSQL.',
    );
  if (lockedHere.has(lockFile)) throw inUse(process.pid);
  try {
    await writeFile(lockFile, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const pid = Number((await readFile(lockFile, 'utf8')).trim());
    // A lock left by a process that died (or by an earlier life of this pid,
    // as in a container where the service is always pid 1) is stale.
    if (pid !== process.pid && isAlive(pid)) throw inUse(pid);
    await writeFile(lockFile, String(process.pid));
  }
  lockedHere.add(lockFile);
  return async () => {
    lockedHere.delete(lockFile);
    await rm(lockFile, { force: true });
  };
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
