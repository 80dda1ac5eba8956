import { sql, type Kysely } from 'kysely';
import type { Database, LedgerRow } from '../schema.js';

/**
 * The user's balance: kept on the all-time board's entry once onboarded;
 * before, the newest ledger entry's balanceAfter (events from other services
 * award points before onboarding); 0 without either.
 */
export async function findBalance(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('leaderboardEntries')
        .select('points')
        .where('userId', '=', userId)
        .where('board', '=', 'all')
        .as('entry'),
      eb
        .selectFrom('pointsLedger')
        .select('balanceAfter')
        .where('userId', '=', userId)
        .orderBy('id', 'desc')
        .limit(1)
        .as('ledger'),
    ])
    .executeTakeFirstOrThrow();
  return row.entry ?? row.ledger ?? 0;
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

/**
 * What the user earned on season boards since each of `since` (one per
 * time, in order), from their ledger: every entry counts at its
 * `recorded_at` (the app's clock its write chose its boards by), except
 * that a reversal counts at its event's (it takes the points back from the
 * seasons they were earned in), and adjustments, which move the balance and
 * the all-time board only, count nowhere. What a fan earned before
 * onboarding opens their season entries with it (docs/ACTIVITY.md, "Before
 * onboarding").
 */
export async function seasonPointsSince(
  db: Kysely<Database>,
  userId: string,
  since: readonly Date[],
): Promise<number[]> {
  const at = sql`coalesce(e.recorded_at, l.recorded_at, l.created_at)`;
  const row = await db
    .selectFrom('pointsLedger as l')
    .leftJoin('activityEvents as e', (join) =>
      join
        .on('l.source', '=', 'reversal')
        .on('e.clientId', '=', sql<string>`l.source_detail->>'clientId'`)
        .on('e.eventId', '=', sql<string>`l.source_detail->>'eventId'`),
    )
    .select(
      since.map((from, i) =>
        sql<string | null>`sum(l.delta) FILTER (WHERE ${at} >= ${from})`.as(`s${i}`),
      ),
    )
    .where('l.userId', '=', userId)
    .where('l.source', '<>', 'adjustment')
    .executeTakeFirstOrThrow();
  const sums = row as Record<string, string | null>;
  return since.map((_, i) => Number(sums[`s${i}`] ?? 0));
}

/** The user's ledger entry with this idempotency key, if it was made. */
export function findLedgerEntry(
  db: Kysely<Database>,
  userId: string,
  key: string,
): Promise<LedgerRow | undefined> {
  return db
    .selectFrom('pointsLedger')
    .selectAll()
    .where('userId', '=', userId)
    .where('idempotencyKey', '=', key)
    .executeTakeFirst();
}
