/**
 * What a part of the write statement is (statement.ts): one fact of a write
 * (does it touch the profile, the board entries, the quests, the ledger, the
 * handle, the outbox; does it return the rank, the history, the state it
 * found), for every fan of the statement at once. A part decides, in one
 * place, whether any of the statement's plans needs it, the rows it binds
 * (one JSON array over all the fans, each row carrying its `user_id`) and
 * the SQL it adds, which joins the guard by `user_id`: a fan whose version
 * moved has no guard row, so no part writes anything of them.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../../../schema.js';
import type { Slot } from '../../../statements.js';
import type { UserWritePlan } from '../plan.js';

/**
 * A CTE. `materialized`: computed once even where PostgreSQL would inline it
 * (a CTE read once is inlined, and a filter on it pushed down can then
 * evaluate its expressions twice).
 */
export type Cte = readonly [name: string, statement: RawBuilder<unknown>, materialized?: true];
/** A result column, per fan: its SQL may use `f` (the fan's row) and `g` (its guard row, or nulls). */
export type Column = readonly [name: string, value: RawBuilder<unknown>];

/** A part's place in the statement, known when it is built. */
export interface Context {
  db: Kysely<Database>;
  /** The CTEs the parts before this one added. */
  ctes: ReadonlySet<string>;
  /** More than one fan: the statement locks them in id order and ranks count each other's moves. */
  many: boolean;
}

export interface Part {
  /** What the statement's text takes from this part: its name and any choice it keys on. */
  key: string;
  values: object;
  /** Its CTEs and result columns, with a Slot for each of its values. */
  build(v: Record<string, Slot<never>>, context: Context): { ctes?: Cte[]; columns?: Column[] };
}

/** The plans of one statement, each with its fan's place in it. */
export type Plans = readonly UserWritePlan[];

/** A part whose SQL can use only its own values (as Slots). */
export function part<V extends object>(
  key: string,
  values: V,
  build: (
    v: { readonly [K in keyof V]-?: Slot<never> },
    context: Context,
  ) => { ctes?: Cte[]; columns?: Column[] },
): Part {
  return { key, values, build: build as Part['build'] };
}

/** Each plan's rows of one kind, with its user_id, flattened in plan order. */
export function rowsOf<R extends object>(
  plans: Plans,
  rows: (plan: UserWritePlan, fan: number) => readonly R[],
): (R & { user_id: string; fan: number })[] {
  return plans.flatMap((plan, fan) =>
    rows(plan, fan).map((row) => ({ ...row, user_id: plan.userId, fan })),
  );
}
