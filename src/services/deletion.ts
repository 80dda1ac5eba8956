import type { Kysely } from 'kysely';
import { deleteUserRow, lockIdentityUser, pseudonymiseLedger } from '../../db/queries/accounts.js';
import { notifyAccountDeleted, recordAccountDeleted } from '../../db/queries/events.js';
import { deleteBoardEntries } from '../../db/queries/rank.js';
import type { Database } from '../../db/schema.js';

/**
 * DELETE /api/user: erases the account in one transaction (docs/ACCOUNT.md).
 * The ledger rows move to an anonymous tombstone, and the users row goes
 * with its profile, quest progress, board entries, handle history and
 * handles (free at once). Under the user's row lock: a write of the user
 * that waited for it finds no user and starts over as a new one
 * (protectedProcedure). An `account_deleted` event, committed with the
 * deletion, tells webhook receivers; a notification tells every instance
 * (its streams of the account end, its cached id is forgotten).
 *
 * The account is the live user the identity has now, found (and locked) by
 * issuer and subject, never created: when there is none (a DELETE racing
 * this one, here or on another instance, committed first, or the call is a
 * repeat), the account is deleted already and the answer is the same, with
 * no user created only to be deleted (that would announce the deletion of an
 * id no client ever saw).
 */
export function deleteAccount(
  db: Kysely<Database>,
  identity: { issuer: string; subject: string },
): Promise<{ deletedAt: Date }> {
  return db.transaction().execute(async (trx) => {
    const userId = await lockIdentityUser(trx, identity);
    if (userId === undefined) return { deletedAt: new Date() };
    await pseudonymiseLedger(trx, userId);
    // Explicitly, not by cascade: the entries' rank counts go with them.
    await deleteBoardEntries(trx, userId);
    await recordAccountDeleted(trx, userId);
    await notifyAccountDeleted(trx, userId);
    return { deletedAt: await deleteUserRow(trx, userId) };
  });
}
