import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * What the operator's Overview counts, over the last `seconds` by the
 * database's clock (docs/decisions/0092-console-overview.md). Each scans its
 * table's rows of the window: an admin page's occasional read, not a hot path.
 */

/** A window's start, the database's `now()` minus `seconds`. */
const windowStart = (seconds: number) => sql<Date>`now() - make_interval(secs => ${seconds})`;

/** A time column's bucket of `bucketSeconds`, counted from the epoch. */
const bucketOf = (column: string, bucketSeconds: number) =>
  sql<Date>`date_bin(make_interval(secs => ${bucketSeconds}), ${sql.ref(column)}, timestamptz 'epoch')`;

export interface EventBucket {
  /** The bucket's start. */
  at: Date;
  type: string;
  /** Events recorded of the type in the bucket. */
  events: number;
  /** The points they awarded (those since reversed left out). */
  points: number;
}

/** The events recorded in the window, by bucket and type, oldest first. */
export async function eventBuckets(
  db: Kysely<Database>,
  window: { seconds: number; bucketSeconds: number },
): Promise<EventBucket[]> {
  const rows = await db
    .selectFrom('activityEvents')
    .select([
      bucketOf('recorded_at', window.bucketSeconds).as('at'),
      'type',
      sql<string>`count(*)`.as('events'),
      sql<string>`coalesce(sum(points) FILTER (WHERE reversed_at IS NULL), 0)`.as('points'),
    ])
    .where('recordedAt', '>', windowStart(window.seconds))
    .groupBy(['at', 'type'])
    .orderBy('at')
    .orderBy('type')
    .execute();
  return rows.map((row) => ({
    at: new Date(row.at),
    type: row.type,
    events: Number(row.events),
    points: Number(row.points),
  }));
}

/** How many fans had an event recorded in the window. */
export async function activeFans(db: Kysely<Database>, seconds: number): Promise<number> {
  const row = await db
    .selectFrom('activityEvents')
    .select(sql<string>`count(DISTINCT user_id)`.as('n'))
    .where('recordedAt', '>', windowStart(seconds))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface DeliveryHealth {
  delivered: number;
  failed: number;
  gaveUp: number;
  /** Deliveries waiting in endpoints' queues now. */
  queued: number;
  /** Endpoints not retired, enabled or not. */
  endpointsEnabled: number;
  endpointsDisabled: number;
}

/** Webhook attempts in the window by outcome, the queues' depth and the endpoints in service. */
export async function deliveryHealth(
  db: Kysely<Database>,
  seconds: number,
): Promise<DeliveryHealth> {
  const outcomes = await db
    .selectFrom('webhookDeliveries')
    .select(['outcome', sql<string>`count(*)`.as('n')])
    .where('createdAt', '>', windowStart(seconds))
    .groupBy('outcome')
    .execute();
  const count = (outcome: string) => Number(outcomes.find((o) => o.outcome === outcome)?.n ?? 0);
  const queue = await db
    .selectFrom('webhookQueue')
    .select(sql<string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  const endpoints = await db
    .selectFrom('webhookEndpoints')
    .select([
      sql<string>`count(*) FILTER (WHERE enabled)`.as('enabled'),
      sql<string>`count(*) FILTER (WHERE NOT enabled)`.as('disabled'),
    ])
    .where('retiredAt', 'is', null)
    .executeTakeFirstOrThrow();
  return {
    delivered: count('delivered'),
    failed: count('failed'),
    gaveUp: count('gave_up'),
    queued: Number(queue.n),
    endpointsEnabled: Number(endpoints.enabled),
    endpointsDisabled: Number(endpoints.disabled),
  };
}

/** The database's clock: the window's end. */
export async function databaseNow(db: Kysely<Database>): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT now() AS now`.execute(db);
  return new Date(rows[0]!.now);
}
