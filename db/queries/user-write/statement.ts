/**
 * The one data-modifying statement that applies the plans of a set of fans
 * (plan.ts), built from parts (parts/): one part per fact of a write, for
 * all the fans at once (parts/part.ts). A single fan's write is the n = 1
 * case of the same statement.
 *
 * The first CTEs are the guard:
 *
 *     UPDATE users u SET version = u.version + 1 … FROM fans f
 *     WHERE u.id = f.user_id AND u.version = f.expected_version
 *
 * and every other CTE draws its rows from it (`… JOIN guard g ON g.id =
 * x.user_id`), so a fan whose version moved since the read has no guard row
 * and the statement changes nothing of them, while it writes the others.
 * With more than one fan the guard first locks the fans' rows in id order,
 * and the count cells are merged by cell and locked in key order
 * (db/queries/rank.ts), so two statements never wait on each other's rows
 * in opposite orders. Data-modifying CTEs always run to completion,
 * referenced or not; a plain SELECT CTE runs only if the final SELECT reads
 * it. Every CTE sees the same snapshot (from before the write) and the same
 * `now()`: one clock for every row of a write. No CTE may take a table's
 * name: the state read returned on a stale write names them.
 *
 * The text depends only on which parts the plans have (and the few choices
 * a part keys on), never on the values or on how many fans, beyond one or
 * more: it is built and compiled once per combination, with Slots for the
 * values, and kept in the database handle's CompiledStatements
 * (db/statements.ts); a write only computes its parts' rows and fills them
 * in. Only the parts some plan needs are sent: planning CTEs that write
 * nothing cost more than running the ones that do.
 */
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import type { Database, UserRow } from '../../schema.js';
import { fill, Slot, type CompiledStatements } from '../../statements.js';
import { boardsPart, visibilityPart } from './parts/boards.js';
import { currentStatePart, historyPart, outboxPart, rankPart } from './parts/outbox.js';
import type { Column, Context, Part, Plans } from './parts/part.js';
import { guardPart, handlePart, profilePart } from './parts/profile.js';
import { activityPart, auditPart, ledgerPart, questsPart, streaksPart } from './parts/records.js';
import type { UserWritePlan } from './plan.js';
import type { BoardEntry, LedgerJson, ProfileJson, QuestJson, StateRow } from './state.js';

/**
 * The statement's row for one fan, in plan order: the guard's user row (all
 * null when it matched none), the statement's clock, and a column per part
 * that returns something (absent when no plan has such a part).
 */
export interface WriteRow extends UserRow {
  /** The plan's place in the statement. */
  writeOrd: number;
  writtenAt: Date;
  writtenProfile?: ProfileJson | null;
  writtenEntries?: Array<BoardEntry & { board: string }>;
  writtenQuests?: QuestJson[];
  /** The ledger rows this write inserted, newest first. */
  newLedger?: LedgerJson[];
  /** The newest ledger rows from before the write, newest first. */
  olderLedger?: LedgerJson[];
  rank?: string | null;
  /** How many notifications the outbox part sent (read only so that its NOTIFY runs). */
  notified?: unknown;
  /** Only when the guard matched no row: the state the statement found, or null without a user. */
  currentState?: StateRow | null;
}

/** The statement applying `plans` (one per fan, distinct fans), compiled once per combination of parts. */
export function writeQuery(
  statements: CompiledStatements,
  plans: readonly UserWritePlan[],
): CompiledQuery {
  const many = plans.length > 1;
  const parts = PARTS.map((part) => part(plans));
  const key = (many ? 'many ' : '') + parts.map((part) => part?.key ?? '').join(' ');
  const template = statements.template(`user write ${key}`, (db) =>
    writeStatement(db, parts, many).compile(db),
  );
  return fill(
    template,
    parts.map((part) => part?.values),
  );
}

function writeStatement(
  db: Kysely<Database>,
  parts: readonly (Part | undefined)[],
  many: boolean,
): RawBuilder<WriteRow> {
  const ctes = new Set<string>();
  const withs: RawBuilder<unknown>[] = [];
  const columns: RawBuilder<unknown>[] = [];
  parts.forEach((part, index) => {
    if (!part) return;
    // Each value's Slot reads it from the part's values, at the part's place.
    const slots = new Proxy({} as Record<string, Slot<never>>, {
      get: (_target, key) =>
        new Slot(
          (values: readonly (Record<string | symbol, unknown> | undefined)[]) =>
            values[index]?.[key],
        ),
    });
    const context: Context = { db, ctes, many };
    const added = part.build(slots, context);
    for (const [name, statement, materialized] of added.ctes ?? []) {
      ctes.add(name);
      withs.push(
        sql`${sql.id(name)} AS ${materialized ? sql`MATERIALIZED ` : sql``}(${statement})`,
      );
    }
    for (const [name, value] of added.columns ?? ([] as Column[])) {
      columns.push(sql`${value} AS ${sql.id(name)}`);
    }
  });
  return sql<WriteRow>`WITH ${sql.join(withs)}
    SELECT f.ord AS write_ord, g.*, now() AS written_at${
      columns.length > 0 ? sql`, ${sql.join(columns)}` : sql``
    }
    FROM fans f LEFT JOIN guard g ON g.id = f.user_id
    ORDER BY f.ord`;
}

/** The parts, in statement order: a part may read the CTEs of those before it. */
const PARTS: ReadonlyArray<(plans: Plans) => Part | undefined> = [
  guardPart,
  profilePart,
  boardsPart,
  questsPart,
  streaksPart,
  ledgerPart,
  activityPart,
  handlePart,
  visibilityPart,
  auditPart,
  outboxPart,
  rankPart,
  historyPart,
  currentStatePart,
];
