import { sql, type Kysely } from 'kysely';
import type { StoredQuest } from '../../src/domain/quests.js';
import type { Database, LedgerRow } from '../schema.js';
import { upsertUserQuests } from './quests.js';

/** One ledger credit. `key` is unique per user: the same award can never land twice. */
export interface Award {
  key: string;
  delta: number;
  reason: string;
  questId: string | null;
}

/**
 * Writes one quest sync in a single statement: the ledger rows for `awards`,
 * the changed quest states, and the balance on the leaderboard row, all at the
 * transaction's time. Returns the balance after.
 *
 * The caller holds the user's row lock (every points write takes it first) and
 * read `balanceBefore` after taking it, so `balanceAfter` of each entry is
 * exact; the statement checks that the leaderboard agrees and throws (rolling
 * the transaction back) if it does not. A repeated award key violates the
 * ledger's unique constraint and rolls the transaction back too. The caller
 * must have created the leaderboard entry when there are awards.
 */
export async function recordQuestSync(
  trx: Kysely<Database>,
  userId: string,
  input: { balanceBefore: number; awards: readonly Award[]; quests: readonly StoredQuest[] },
): Promise<number> {
  const { balanceBefore, awards, quests } = input;
  if (awards.length === 0) {
    if (quests.length > 0) await upsertUserQuests(trx, userId, quests).execute();
    return balanceBefore;
  }
  const total = awards.reduce((sum, award) => sum + award.delta, 0);
  let balance = balanceBefore;
  const ledgerRows = awards.map((award) => {
    balance += award.delta;
    return {
      userId,
      delta: award.delta,
      reason: award.reason,
      questId: award.questId,
      idempotencyKey: award.key,
      balanceAfter: balance,
      createdAt: sql<Date>`now()`,
    };
  });
  // Data-modifying CTEs always run to completion, referenced or not. A newly
  // completed quest always changes its stored state, so `quests` is never
  // empty when there are awards.
  const statement = trx
    .with('quests', (db) => upsertUserQuests(db, userId, quests).returning('questId'))
    .with('ledger', (db) => db.insertInto('pointsLedger').values(ledgerRows).returning('id'))
    .updateTable('leaderboardEntries')
    .set((eb) => ({
      points: eb('points', '+', total),
      reachedAt: sql<Date>`now()`,
      updatedAt: sql<Date>`now()`,
    }))
    .where('userId', '=', userId)
    .returning('points');
  const row = await statement.executeTakeFirst();
  if (row?.points !== balance) {
    throw new Error(
      `Leaderboard balance ${row?.points ?? '(no entry)'} does not match the ledger (${balance})`,
    );
  }
  return balance;
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
