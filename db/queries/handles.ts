import type { Kysely } from 'kysely';
import type { Database, HandleHistoryRow } from '../schema.js';

// Handles are claimed, reserved and recorded by the write statement
// (db/queries/user-write.ts); these are the reads.

/** Every recorded handle change of the user, oldest first. */
export function handleHistory(db: Kysely<Database>, userId: string): Promise<HandleHistoryRow[]> {
  return db
    .selectFrom('handleHistory')
    .selectAll()
    .where('userId', '=', userId)
    .orderBy('id', 'asc')
    .execute();
}
