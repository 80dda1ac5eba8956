import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Marks where a value goes in a statement compiled once: bound like any
 * value when the statement is built, then read from each call's values
 * when it is filled (`fill`).
 */
export class Slot<V = never> {
  constructor(readonly read: (values: V) => unknown) {}
}

/** A statement compiled once, with Slots where its values go. */
export interface StatementTemplate {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** `template` with each Slot replaced by what it reads from `values`. */
export function fill<V>(template: StatementTemplate, values: V): CompiledQuery {
  return CompiledQuery.raw(
    template.sql,
    template.parameters.map((value) =>
      value instanceof Slot ? (value as Slot<V>).read(values) : value,
    ),
  );
}

/**
 * Statements past this many keys are compiled on every call and run unnamed
 * (the write has one text per combination of its parts; db/queries/user-write/).
 */
const MAX_STATEMENTS = 256;

/**
 * Errors that say a named statement cannot be used on this server connection:
 * it does not exist there (26000) or one of that name does (42P05), which is
 * what a transaction pooler that does not track them (PgBouncer before 1.21,
 * or with max_prepared_statements = 0) causes; or its cached plan no longer
 * fits a table a newer instance migrated (0A000). Each is raised before the
 * statement runs.
 */
const NAME_REFUSED = new Set(['26000', '42P05', '0A000']);

/**
 * The one cache of compiled statements, owned by a database handle
 * (db/database.ts). Each is built through Kysely and compiled once, then a
 * call only fills in its values: Kysely would otherwise rebuild the immutable
 * query tree, run the CamelCasePlugin over it and compile it again on every
 * call, which cost more CPU than the database spent running the write path's
 * statements.
 *
 * On PostgreSQL each one also runs as a named (server-side prepared)
 * statement: PostgreSQL plans an unnamed statement anew on every call, a
 * named one is parsed once per connection and, once PostgreSQL finds its
 * generic plan no costlier than the custom ones, planned once. The name is a
 * hash of the text, so one name always means one statement, in every process
 * sharing a server connection through a pooler. Only statements that run
 * alone (autocommit) belong here: a name a pooler refuses makes the pool run
 * the statement again unnamed (`nameOf`, `refused`), which is safe only
 * outside a transaction.
 */
export class CompiledStatements {
  readonly #compiler: Kysely<Database>;
  readonly #templates = new Map<string, StatementTemplate>();
  /** The name of each cached template's text, for the pool's client (db/database.ts). */
  readonly #names = new Map<string, string>();
  #naming: boolean;
  readonly #onNamingOff: ((error: Error) => void) | undefined;

  /**
   * @param compiler compiles every statement: the handle's own Kysely, whose
   *   plugins (CamelCasePlugin) decide the text. Calls may run the statements
   *   on another instance over the same database (a transaction, a test's
   *   counting plugin).
   * @param naming run the statements as named statements (PostgreSQL only).
   * @param onNamingOff told once when a server connection refuses a name.
   */
  constructor(
    compiler: Kysely<Database>,
    options: { naming: boolean; onNamingOff?: ((error: Error) => void) | undefined },
  ) {
    this.#compiler = compiler;
    this.#naming = options.naming;
    this.#onNamingOff = options.onNamingOff;
  }

  /**
   * The statement known as `key`, compiled by `build` on first use. `build`
   * must use values only through Slots (bound, never choosing the text): the
   * text depends on `key` alone.
   */
  template(key: string, build: (db: Kysely<Database>) => CompiledQuery): StatementTemplate {
    const cached = this.#templates.get(key);
    if (cached) return cached;
    const { sql, parameters } = build(this.#compiler);
    const template = { sql, parameters };
    if (this.#templates.size < MAX_STATEMENTS) {
      this.#templates.set(key, template);
      this.#names.set(
        sql,
        `ups_${createHash('sha256').update(sql).digest('base64url').slice(0, 32)}`,
      );
    }
    return template;
  }

  /** The name `text` runs under: one of these statements, while naming is on. */
  nameOf(text: string): string | undefined {
    return this.#naming ? this.#names.get(text) : undefined;
  }

  /**
   * Whether a server connection refused a named statement (NAME_REFUSED);
   * if so, nothing is named from then on and the caller runs it unnamed.
   */
  refused(error: unknown): boolean {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string' || !NAME_REFUSED.has(code)) return false;
    if (this.#naming) {
      this.#naming = false;
      this.#onNamingOff?.(error as Error);
    }
    return true;
  }
}
