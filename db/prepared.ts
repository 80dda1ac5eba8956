import { createHash } from 'node:crypto';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Statements run as named (server-side prepared) statements, by SQL text.
 * PostgreSQL plans an unnamed statement anew on every call; a named one is
 * parsed once per connection and, once PostgreSQL finds its generic plan no
 * costlier than the custom ones (plan_cache_mode = auto), planned once. For
 * the write path that is most of the database's CPU (docs/PERFORMANCE.md).
 * The name is a hash of the text, so one name always means one statement, in
 * every process sharing a server connection through a pooler. Bounded: a
 * statement whose shape is built per call (the write) has one text per shape,
 * and shapes past the bound run unnamed. db/database.ts decides whether a
 * pool names statements at all (DATABASE_PREPARED_STATEMENTS).
 */
const NAMES = new Map<string, string>();
const MAX_NAMED = 256;

/**
 * Marks `text` to run as a named statement. Only for statements that run
 * alone (autocommit), as the write path's do: db/database.ts retries one
 * refused by a transaction pooler unnamed, which is safe only outside a
 * transaction.
 */
export function nameStatement(text: string): void {
  if (NAMES.has(text) || NAMES.size >= MAX_NAMED) return;
  NAMES.set(text, `ups_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`);
}

/** The name `text` runs under, if it was marked. */
export function statementName(text: string): string | undefined {
  return NAMES.get(text);
}

/** Marks where a value goes in a statement compiled once (templateOf). */
export class Slot {
  constructor(readonly key: string | number) {}
}

/** A statement compiled once, with Slots where its values go. */
export interface StatementTemplate {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * A statement built with Slots in place of its values (every value bound,
 * none choosing the statement's shape) and compiled, kept so that
 * `fillTemplate` makes the query for new values without building or
 * compiling anything. The text is named (nameStatement): it runs as a
 * prepared statement.
 */
export function templateOf(compiled: CompiledQuery): StatementTemplate {
  nameStatement(compiled.sql);
  return { sql: compiled.sql, parameters: compiled.parameters };
}

/** `template` with each Slot replaced by `valueOf(slot.key)`. */
export function fillTemplate(
  template: StatementTemplate,
  valueOf: (key: string | number) => unknown,
): CompiledQuery {
  return CompiledQuery.raw(
    template.sql,
    template.parameters.map((value) => (value instanceof Slot ? valueOf(value.key) : value)),
  );
}

/**
 * A statement whose shape never changes, built and compiled through Kysely
 * once and then run with new argument values. Kysely otherwise rebuilds the
 * immutable query tree, runs the CamelCasePlugin over every identifier and
 * compiles it again on every call, which costs more CPU than the database
 * spends running the user-state read (docs/PERFORMANCE.md).
 *
 * `build` must use each argument only as a bound value (never to choose the
 * statement's shape): it is called once, with placeholders. Results still
 * pass through the instance's plugins, so rows are camelCased as usual.
 */
export function preparedStatement<A extends unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, ...args: A) => Promise<R[]> {
  let template: StatementTemplate | undefined;
  return async (db, ...args) => {
    template ??= templateOf(build(db, ...(args.map((_, index) => new Slot(index)) as A)).compile());
    const result = await db.executeQuery<R>(
      fillTemplate(template, (index) => args[index as number]),
    );
    return result.rows;
  };
}
