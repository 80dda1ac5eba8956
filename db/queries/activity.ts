import type { Kysely } from 'kysely';
import type { ActivityEventRow, Database } from '../schema.js';

/** An event as the service stored it: what was sent, and the result it had. */
export type ActivityEntry = Pick<
  ActivityEventRow,
  | 'clientId'
  | 'eventId'
  | 'userId'
  | 'type'
  | 'value'
  | 'occurredAt'
  | 'bodyHash'
  | 'points'
  | 'balanceAfter'
  | 'questsCompleted'
  | 'recordedAt'
  | 'reversedAt'
>;

const COLUMNS = [
  'clientId',
  'eventId',
  'userId',
  'type',
  'value',
  'occurredAt',
  'bodyHash',
  'points',
  'balanceAfter',
  'questsCompleted',
  'recordedAt',
  'reversedAt',
] as const;

/** The stored events among `ids` sent by `clientId`, by event id. */
export async function findRecordedEvents(
  db: Kysely<Database>,
  clientId: string,
  ids: readonly string[],
): Promise<Map<string, ActivityEntry>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('activityEvents')
    .select(COLUMNS)
    .where('clientId', '=', clientId)
    .where('eventId', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.eventId, row]));
}

/** Every event recorded for the user, oldest first (the account export). */
export function activityOf(db: Kysely<Database>, userId: string): Promise<ActivityEntry[]> {
  return db
    .selectFrom('activityEvents')
    .select(COLUMNS)
    .where('userId', '=', userId)
    .orderBy('id')
    .execute();
}
