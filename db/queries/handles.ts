import { sql, type Kysely } from 'kysely';
import type { Database, HandleHistoryRow } from '../schema.js';

/**
 * Claims `key` for the user: inserts the claim, or takes over the existing
 * row when it is the user's own (held, or reserved for them) or a reservation
 * that has expired. False when someone else holds it or it is reserved for
 * someone else. One statement: concurrent claims (on any instance) queue on
 * the primary key, and the loser sees the winner's committed row.
 */
export async function claimHandle(
  trx: Kysely<Database>,
  userId: string,
  key: string,
): Promise<boolean> {
  const row = await trx
    .insertInto('handleClaims')
    .values({ handleKey: key, userId, reservedUntil: null, updatedAt: sql<Date>`now()` })
    .onConflict((oc) =>
      oc
        .column('handleKey')
        .doUpdateSet({ userId, reservedUntil: null, updatedAt: sql<Date>`now()` })
        .where((eb) =>
          eb.or([
            eb('handleClaims.userId', '=', userId),
            eb('handleClaims.reservedUntil', '<=', sql<Date>`now()`),
          ]),
        ),
    )
    .returning('handleKey')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Gives up the user's claim on `key`: reserved for them for `reserveDays`
 * from the transaction's time, or released at once when that is 0.
 */
export async function releaseHandle(
  trx: Kysely<Database>,
  userId: string,
  key: string,
  reserveDays: number,
): Promise<void> {
  if (reserveDays === 0) {
    await trx
      .deleteFrom('handleClaims')
      .where('handleKey', '=', key)
      .where('userId', '=', userId)
      .execute();
    return;
  }
  await trx
    .updateTable('handleClaims')
    .set({ reservedUntil: reservedUntil(reserveDays), updatedAt: sql<Date>`now()` })
    .where('handleKey', '=', key)
    .where('userId', '=', userId)
    .execute();
}

function reservedUntil(days: number) {
  return sql<Date>`now() + make_interval(days => ${days}::integer)`;
}

/** Appends one change of the user's stored handle (at the transaction's time). */
export async function recordHandleChange(
  trx: Kysely<Database>,
  userId: string,
  change: { oldHandle: string | null; newHandle: string; kind: HandleHistoryRow['kind'] },
): Promise<void> {
  await trx
    .insertInto('handleHistory')
    .values({ userId, ...change, changedAt: sql<Date>`now()` })
    .execute();
}

/** When the user last replaced an existing handle with another one (kind `change`), or undefined. */
export async function lastHandleChangeAt(
  db: Kysely<Database>,
  userId: string,
): Promise<Date | undefined> {
  const row = await db
    .selectFrom('handleHistory')
    .select('changedAt')
    .where('userId', '=', userId)
    .where('kind', '=', 'change')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.changedAt;
}

/** Every recorded handle change of the user, oldest first. */
export function handleHistory(db: Kysely<Database>, userId: string): Promise<HandleHistoryRow[]> {
  return db
    .selectFrom('handleHistory')
    .selectAll()
    .where('userId', '=', userId)
    .orderBy('id', 'asc')
    .execute();
}
