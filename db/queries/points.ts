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

/** Gives the user a leaderboard entry (0 points) if they have none yet. */
export async function ensureLeaderboardEntry(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx
    .insertInto('leaderboardEntries')
    .values({ userId, points: 0, reachedAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .onConflict((oc) => oc.column('userId').doNothing())
    .execute();
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

/** The newest ledger entries, newest first. */
export function recentLedgerEntries(
  db: Kysely<Database>,
  userId: string,
  limit: number,
): Promise<LedgerRow[]> {
  return db
    .selectFrom('pointsLedger')
    .selectAll()
    .where('userId', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export interface RankedEntry {
  userId: string;
  handle: string | null;
  name: string | null;
  profileUrl: string | null;
  points: number;
  rank: number;
}

/**
 * The user's leaderboard entry with its 1-based rank: more points first, then
 * whoever reached that score first, then user id.
 */
export async function findRankedEntry(
  db: Kysely<Database>,
  userId: string,
): Promise<RankedEntry | undefined> {
  const row = await db
    .selectFrom('leaderboardEntries as e')
    .leftJoin('profiles as p', 'p.userId', 'e.userId')
    .select(['e.userId', 'p.handle', 'p.name', 'p.profileUrl', 'e.points'])
    .select((eb) =>
      eb
        .selectFrom('leaderboardEntries as a')
        .select(sql<string>`count(*) + 1`.as('rank'))
        .where((w) =>
          w.or([
            w('a.points', '>', w.ref('e.points')),
            w.and([
              w('a.points', '=', w.ref('e.points')),
              w(w.refTuple('a.reachedAt', 'a.userId'), '<', w.refTuple('e.reachedAt', 'e.userId')),
            ]),
          ]),
        )
        .as('rank'),
    )
    .where('e.userId', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...row, rank: Number(row.rank) };
}
