import type { Kysely, NotNull } from 'kysely';
import type { Database, HandleHistoryRow } from '../schema.js';

// Handles are claimed, reserved and recorded by the write statement
// (db/queries/user-write/); these are the reads.

/** Every recorded handle change of the user, oldest first. */
export function handleHistory(db: Kysely<Database>, userId: string): Promise<HandleHistoryRow[]> {
  return db
    .selectFrom('handleHistory')
    .selectAll()
    .where('userId', '=', userId)
    .orderBy('id', 'asc')
    .execute();
}

/** Handles the user gave up that are still reserved for them (or were: expired ones too). */
export function handleReservations(
  db: Kysely<Database>,
  userId: string,
): Promise<{ handleKey: string; reservedUntil: Date }[]> {
  return db
    .selectFrom('handleClaims')
    .select(['handleKey', 'reservedUntil'])
    .where('userId', '=', userId)
    .where('reservedUntil', 'is not', null)
    .orderBy('handleKey')
    .$narrowType<{ reservedUntil: NotNull }>()
    .execute();
}
