import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** The issuer of tombstone rows: no identity provider signs for it, so no token maps to one. */
export const TOMBSTONE_ISSUER = 'urn:user-profile-service:deleted';

/**
 * Locks the live user an identity has now for the rest of the transaction
 * and answers its id, or undefined when it has none (its account was deleted
 * and nothing has used it since). Writes of the user
 * (db/queries/user-write/) queue behind the lock and, once the row is
 * gone, find no user.
 */
export async function lockIdentityUser(
  trx: Kysely<Database>,
  identity: { issuer: string; subject: string },
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('users')
    .select('id')
    .where('issuer', '=', identity.issuer)
    .where('subject', '=', identity.subject)
    .where('deletedAt', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  return row?.id;
}

/**
 * Moves the user's ledger rows to a new tombstone user (a random id, no
 * identity), the one UPDATE the ledger's trigger allows. Nothing links the
 * tombstone to the account it came from. No-op without ledger rows.
 */
export async function pseudonymiseLedger(trx: Kysely<Database>, userId: string): Promise<void> {
  const hasLedger = await trx
    .selectFrom('pointsLedger')
    .select('id')
    .where('userId', '=', userId)
    .limit(1)
    .executeTakeFirst();
  if (!hasLedger) return;
  const tombstone = await trx
    .insertInto('users')
    .values({
      issuer: TOMBSTONE_ISSUER,
      // (issuer, subject) is unique: a random subject of its own.
      subject: sql<string>`gen_random_uuid()::text`,
      updatedAt: sql<Date>`now()`,
      deletedAt: sql<Date>`now()`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('pointsLedger')
    .set({ userId: tombstone.id })
    .where('userId', '=', userId)
    .execute();
}

/**
 * The user's handle claims outlive the account as reservations for nobody:
 * a held handle is reserved for `reserveDays`, one the user had given up
 * keeps its reservation's end. With `reserveDays` 0 they are released at once.
 */
export async function orphanHandleClaims(
  trx: Kysely<Database>,
  userId: string,
  reserveDays: number,
): Promise<void> {
  if (reserveDays === 0) {
    await trx.deleteFrom('handleClaims').where('userId', '=', userId).execute();
    return;
  }
  await trx
    .updateTable('handleClaims')
    .set({
      userId: null,
      reservedUntil: sql<Date>`coalesce(reserved_until, now() + make_interval(days => ${reserveDays}::integer))`,
      updatedAt: sql<Date>`now()`,
    })
    .where('userId', '=', userId)
    .execute();
}

/**
 * Deletes the users row; the profile, quest progress, board entries and
 * handle history go with it (ON DELETE CASCADE). Call it last: the ledger
 * and the handle claims must have been moved off the user first.
 */
export async function deleteUserRow(trx: Kysely<Database>, userId: string): Promise<Date> {
  const row = await trx
    .deleteFrom('users')
    .where('id', '=', userId)
    .returning(sql<Date>`now()`.as('deletedAt'))
    .executeTakeFirstOrThrow();
  return row.deletedAt;
}
