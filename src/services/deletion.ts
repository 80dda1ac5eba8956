import type { Kysely } from 'kysely';
import {
  deleteUserRow,
  lockUserRow,
  orphanHandleClaims,
  pseudonymiseLedger,
} from '../../db/queries/accounts.js';
import { recordAccountDeleted } from '../../db/queries/events.js';
import { deleteBoardEntries } from '../../db/queries/rank.js';
import type { Database } from '../../db/schema.js';
import { UserGoneError } from '../app-error.js';
import type { HandlePolicy } from '../domain/handles.js';

/**
 * DELETE /api/user: erases the account in one transaction (docs/ACCOUNT.md).
 * The ledger rows move to an anonymous tombstone, the handles stay reserved
 * for nobody, and the users row goes with its profile, quest progress, board
 * entries and handle history. Under the user's row lock: a write of the user
 * that waited for it finds no user and starts over as a new one
 * (protectedProcedure). An `account_deleted` event, committed with the
 * deletion, tells webhook receivers.
 */
export function deleteAccount(
  db: Kysely<Database>,
  userId: string,
  handles: HandlePolicy,
): Promise<{ deletedAt: Date }> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockUserRow(trx, userId))) throw new UserGoneError();
    await pseudonymiseLedger(trx, userId);
    await orphanHandleClaims(trx, userId, handles.reserveDays);
    // Explicitly, not by cascade: the entries' rank counts go with them.
    await deleteBoardEntries(trx, userId);
    await recordAccountDeleted(trx, userId);
    return { deletedAt: await deleteUserRow(trx, userId) };
  });
}
