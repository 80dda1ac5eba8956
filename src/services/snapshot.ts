import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * Runs `read` in one read-only REPEATABLE READ transaction, so every statement
 * of a read sees the same snapshot (a rank and its neighbours, a user and
 * their balance agree with each other).
 */
export function readSnapshot<T>(
  db: Kysely<Database>,
  read: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(read);
}
