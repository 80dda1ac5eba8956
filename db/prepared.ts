import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Marks where an argument goes when a statement is compiled the one time. */
class Slot {
  constructor(readonly index: number) {}
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
  let template: { sql: string; parameters: readonly unknown[] } | undefined;
  return async (db, ...args) => {
    if (!template) {
      const slots = args.map((_, index) => new Slot(index)) as unknown as A;
      const compiled = build(db, ...slots).compile();
      template = { sql: compiled.sql, parameters: compiled.parameters };
    }
    const parameters = template.parameters.map((value) =>
      value instanceof Slot ? args[value.index] : value,
    );
    const result = await db.executeQuery<R>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
