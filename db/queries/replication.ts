import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

// Positions in the primary's write-ahead log (LSNs), as byte offsets from
// 0/0: `pg_lsn - pg_lsn` is a numeric, carried as text into a bigint.

/**
 * The primary's WAL insert position now. Asked after a transaction has
 * committed, it is at or past that transaction's commit record, so a replica
 * that has replayed up to it shows the transaction.
 */
export async function walInsertPosition(db: Kysely<Database>): Promise<bigint> {
  const { rows } = await sql<{
    lsn: string;
  }>`select (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text as lsn`.execute(db);
  return BigInt(rows[0]!.lsn);
}

/**
 * How far a streaming replica has replayed the primary's WAL; null when the
 * server is not in recovery (not a replica, or promoted).
 */
export async function walReplayPosition(db: Kysely<Database>): Promise<bigint | null> {
  const { rows } = await sql<{
    lsn: string | null;
  }>`select case when pg_is_in_recovery() then (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text end as lsn`.execute(
    db,
  );
  const lsn = rows[0]?.lsn;
  return lsn === null || lsn === undefined ? null : BigInt(lsn);
}
