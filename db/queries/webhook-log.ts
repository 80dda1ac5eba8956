import { sql, type Kysely } from 'kysely';
import type { Database, WebhookDeliveryRow } from '../schema.js';

/*
 * One endpoint's delivery log and what an admin does with it (docs/LIVE.md,
 * "Delivery log"): read it, send an event again, send a test event.
 */

export type DeliveryOutcome = WebhookDeliveryRow['outcome'];

/**
 * One endpoint's logged attempts, newest first: `limit` rows older than
 * `beforeId`, of one outcome or one event when asked (an index range of
 * webhook_deliveries_endpoint_idx).
 */
export function deliveryLogPage(
  db: Kysely<Database>,
  endpointId: string,
  query: {
    limit: number;
    beforeId?: string | undefined;
    outcome?: DeliveryOutcome | undefined;
    eventId?: string | undefined;
  },
): Promise<WebhookDeliveryRow[]> {
  let select = db.selectFrom('webhookDeliveries').selectAll().where('endpointId', '=', endpointId);
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  if (query.outcome !== undefined) select = select.where('outcome', '=', query.outcome);
  if (query.eventId !== undefined) select = select.where('eventId', '=', query.eventId);
  return select.orderBy('id', 'desc').limit(query.limit).execute();
}

/** How many attempts at `eventId` the endpoint's log holds, and the type they delivered. */
export async function loggedAttempts(
  db: Kysely<Database>,
  endpointId: string,
  eventId: string,
): Promise<{ attempts: number; eventType: string | null }> {
  const row = await db
    .selectFrom('webhookDeliveries')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.max('eventType').as('eventType')])
    .where('endpointId', '=', endpointId)
    .where('eventId', '=', eventId)
    .executeTakeFirstOrThrow();
  return { attempts: Number(row.n), eventType: row.eventType };
}

/** The endpoint's queue row for the event: still to be delivered (or in a worker's hands). */
export function queuedDelivery(
  db: Kysely<Database>,
  endpointId: string,
  eventId: string,
): Promise<{ attempts: number; nextAt: Date } | undefined> {
  return db
    .selectFrom('webhookQueue')
    .select(['attempts', 'nextAt'])
    .where('endpointId', '=', endpointId)
    .where('eventId', '=', eventId)
    .executeTakeFirst();
}

/**
 * Queues the outbox event for the endpoint again, due now, its attempts
 * counted on from the `attempts` logged (a claim not yet logged is how
 * account deletion tells a POST in flight: db/queries/events.ts). False
 * when the outbox no longer holds the event (retention, account deletion)
 * or it is queued already.
 */
export async function requeueDelivery(
  db: Kysely<Database>,
  endpointId: string,
  eventId: string,
  attempts: number,
): Promise<boolean> {
  const inserted = await db
    .insertInto('webhookQueue')
    .columns(['endpointId', 'eventId', 'userId', 'attempts', 'nextAt'])
    .expression((eb) =>
      eb
        .selectFrom('liveEvents')
        .select([
          sql.lit(endpointId).$castTo<string>().as('endpointId'),
          'id',
          'userId',
          sql.lit(attempts).as('attempts'),
          sql<Date>`now()`.as('nextAt'),
        ])
        .where('id', '=', eventId),
    )
    .onConflict((oc) => oc.columns(['endpointId', 'eventId']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Whether the outbox still holds the event. */
export async function eventRetained(db: Kysely<Database>, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('liveEvents')
    .select('id')
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A new id from the outbox's sequence for a message that is not stored
 * there (a test event): unique among every event's `webhook-id`, so a
 * receiver never takes it for another event.
 */
export async function newEventId(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{
    id: string;
  }>`SELECT nextval(pg_get_serial_sequence('live_events', 'id'))::text AS id`.execute(db);
  return rows[0]!.id;
}

/** The endpoint's URL and signing secrets (the previous one during a rotation's overlap). */
export async function endpointSigning(
  db: Kysely<Database>,
  endpointId: string,
): Promise<{ url: string; secrets: string[] } | undefined> {
  const row = await db
    .selectFrom('webhookEndpoints')
    .select([
      'url',
      'secret',
      sql<string | null>`CASE WHEN previous_secret_expires_at > now() THEN previous_secret END`.as(
        'previousSecret',
      ),
    ])
    .where('id', '=', endpointId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    url: row.url,
    secrets: row.previousSecret ? [row.secret, row.previousSecret] : [row.secret],
  };
}

/** Logs a test event's one attempt (no queue row: it is never retried). */
export async function logTestDelivery(
  db: Kysely<Database>,
  attempt: {
    endpointId: string;
    eventId: string;
    outcome: 'delivered' | 'gave_up';
    statusCode: number | null;
    error: string | null;
    durationMs: number;
  },
): Promise<WebhookDeliveryRow> {
  return db
    .insertInto('webhookDeliveries')
    .values({ ...attempt, attempt: 1, eventType: 'webhook_test' })
    .returningAll()
    .executeTakeFirstOrThrow();
}
