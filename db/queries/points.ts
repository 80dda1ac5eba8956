import { sql, type Kysely } from 'kysely';
import type { Database, LedgerRow } from '../schema.js';

/** One ledger credit. `key` is unique per user: the same award can never land twice. */
export interface Award {
  key: string;
  delta: number;
  reason: string;
  questId: string | null;
}

/**
 * Appends awards to the ledger and moves the balance on the leaderboard row in
 * the same transaction. The UPDATE takes the row lock first, so concurrent
 * awards for one user queue behind it, and `balanceAfter` is exact. A repeated
 * key violates the ledger's unique constraint and rolls the transaction back.
 * The caller must have created the leaderboard entry.
 */
export async function appendAwards(
  trx: Kysely<Database>,
  userId: string,
  awards: readonly Award[],
): Promise<LedgerRow[]> {
  if (awards.length === 0) return [];
  const total = awards.reduce((sum, award) => sum + award.delta, 0);
  const { points } = await trx
    .updateTable('leaderboardEntries')
    .set((eb) => ({
      points: eb('points', '+', total),
      reachedAt: sql<Date>`now()`,
      updatedAt: sql<Date>`now()`,
    }))
    .where('userId', '=', userId)
    .returning('points')
    .executeTakeFirstOrThrow();

  let balance = points - total;
  const rows = awards.map((award) => {
    balance += award.delta;
    return {
      userId,
      delta: award.delta,
      reason: award.reason,
      questId: award.questId,
      idempotencyKey: award.key,
      balanceAfter: balance,
    };
  });
  return trx.insertInto('pointsLedger').values(rows).returningAll().execute();
}

/** The user's balance as kept on the leaderboard row (0 before onboarding). */
export async function findBalance(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('leaderboardEntries')
    .select('points')
    .where('userId', '=', userId)
    .executeTakeFirst();
  return row?.points ?? 0;
}

/**
 * The newest ledger entries, newest first; with `beforeId`, the ones older
 * than that entry (a keyset page on points_ledger_user_id_idx).
 */
export function recentLedgerEntries(
  db: Kysely<Database>,
  userId: string,
  limit: number,
  beforeId?: string,
): Promise<LedgerRow[]> {
  let query = db.selectFrom('pointsLedger').selectAll().where('userId', '=', userId);
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc').limit(limit).execute();
}
