import type { Kysely } from 'kysely';
import type { Database, LedgerRow } from '../schema.js';

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

/** Every ledger entry of the user, oldest first (the account export). */
export function allLedgerEntries(db: Kysely<Database>, userId: string): Promise<LedgerRow[]> {
  return db
    .selectFrom('pointsLedger')
    .selectAll()
    .where('userId', '=', userId)
    .orderBy('id', 'asc')
    .execute();
}
