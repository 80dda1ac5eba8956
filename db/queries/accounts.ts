import { pseudonymiseAudit } from './audit.js';
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
 * A tombstone is timeless: its times are all the epoch. A time of the
 * deletion stored on it would be the deleting transaction's clock, shared by
 * the `account_deleted` event that names the old id, and tie the pseudonymised
 * ledger back to that id (docs/ACCOUNT.md, "Nothing links back").
 */
const TOMBSTONE_TIME = new Date(0);

/**
 * Moves the user's ledger rows, the events other services recorded for the
 * user (their ids stay taken: a resent event is a duplicate, never a new
 * award) and the admin audit log's rows about the user to a new tombstone user (a random id, no identity, no time): for
 * the ledger, the one UPDATE its trigger allows. Nothing links the tombstone
 * to the account it came from. No-op without either.
 */
export async function pseudonymiseLedger(trx: Kysely<Database>, userId: string): Promise<void> {
  const kept = await trx
    .selectNoFrom((eb) => [
      eb
        .exists(eb.selectFrom('pointsLedger').select('id').where('userId', '=', userId))
        .as('ledger'),
      eb
        .exists(eb.selectFrom('activityEvents').select('id').where('userId', '=', userId))
        .as('activity'),
      eb
        .exists(
          eb
            .selectFrom('adminAudit')
            .select('id')
            .where('targetKind', '=', 'fan')
            .where('targetKey', '=', userId),
        )
        .as('audit'),
    ])
    .executeTakeFirstOrThrow();
  if (!kept.ledger && !kept.activity && !kept.audit) return;
  const tombstone = await trx
    .insertInto('users')
    .values({
      issuer: TOMBSTONE_ISSUER,
      // (issuer, subject) is unique: a random subject of its own.
      subject: sql<string>`gen_random_uuid()::text`,
      createdAt: TOMBSTONE_TIME,
      updatedAt: TOMBSTONE_TIME,
      deletedAt: TOMBSTONE_TIME,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('pointsLedger')
    .set({ userId: tombstone.id })
    .where('userId', '=', userId)
    .execute();
  await trx
    .updateTable('activityEvents')
    .set({ userId: tombstone.id })
    .where('userId', '=', userId)
    .execute();
  await pseudonymiseAudit(trx, userId, tombstone.id);
}

/**
 * Deletes the users row; the profile, quest progress, board entries, handle
 * history and handle claims (held, and given up but reserved for the user)
 * go with it (ON DELETE CASCADE): a deleted account's handles are free at
 * once. Call it last: the ledger must have been moved off the user first.
 * Answers the deletion's time, which is not stored.
 */
export async function deleteUserRow(trx: Kysely<Database>, userId: string): Promise<Date> {
  const row = await trx
    .deleteFrom('users')
    .where('id', '=', userId)
    .returning(sql<Date>`now()`.as('deletedAt'))
    .executeTakeFirstOrThrow();
  return row.deletedAt;
}
