import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { compareIds, type OutboxEvent } from './events.js';

/*
 * The webhook delivery queues (docs/LIVE.md, "Webhooks"). The outbox
 * (live_events) is fanned out by the worker into webhook_queue: one row per
 * (endpoint, event) the endpoint's filter matches, each with its own
 * attempts, lease and back-off. Workers claim deliveries and record each
 * attempt; the endpoints themselves are in webhook-endpoints.ts.
 */

/**
 * How long ago (seconds, by the database's clock) the oldest event still to
 * be delivered to an endpoint in service (enabled, not retired) was written:
 * the first one not yet fanned out, or the first one in such an endpoint's
 * queue; 0 when none waits, or when no endpoint is in service (events are
 * fanned out only then). Both are the lowest id, which the indexes find at
 * once (ids are taken in time order, though they may commit a transaction's
 * length out of it). A paused endpoint's queue is not counted: it waits on
 * purpose.
 */
export async function oldestUndeliveredAge(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ age: string | null }>`
    SELECT extract(epoch from now() - min(created_at)) AS age FROM (
      (SELECT created_at FROM live_events
        WHERE webhook_next_at IS NOT NULL
          AND EXISTS (SELECT 1 FROM webhook_endpoints
            WHERE retired_at IS NULL AND enabled)
        ORDER BY id LIMIT 1)
      UNION ALL
      (SELECT e.created_at FROM webhook_queue q
        JOIN webhook_endpoints w ON w.id = q.endpoint_id AND w.retired_at IS NULL AND w.enabled
        JOIN live_events e ON e.id = q.event_id
        ORDER BY q.event_id LIMIT 1)
    ) AS waiting`.execute(db);
  const age = rows[0]?.age;
  return age === null || age === undefined ? 0 : Math.max(0, Number(age));
}

/**
 * Queues up to `limit` due outbox events for every endpoint not retired whose
 * filter matches and that receives events that old (disabled ones too: they
 * are paused, and catch up when enabled again), and marks them fanned out.
 * Oldest first; rows being fanned out by another worker are waited for, not
 * skipped, so a user's later event is never queued before an earlier one.
 * Returns how many events were taken.
 */
export async function fanOutEvents(db: Kysely<Database>, limit: number): Promise<number> {
  const { rows } = await sql<{ taken: string; announcements: string }>`
    WITH taken AS (
      UPDATE live_events SET webhook_next_at = NULL
      WHERE id IN (
        SELECT id FROM live_events
        WHERE webhook_next_at IS NOT NULL AND webhook_next_at <= now()
        ORDER BY id
        LIMIT ${limit}
        FOR UPDATE)
      RETURNING id, user_id, type, created_at
    ),
    queued AS (
      INSERT INTO webhook_queue (endpoint_id, event_id, user_id)
      SELECT e.id, t.id, t.user_id
      FROM taken t
      JOIN webhook_endpoints e
        ON e.retired_at IS NULL
       AND t.created_at >= e.receives_since
       AND (cardinality(e.event_types) = 0 OR t.type = ANY (e.event_types))
      ORDER BY t.id
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM taken) AS taken,
      (SELECT count(*) FROM taken WHERE user_id IS NULL) AS announcements,
      (SELECT count(*) FROM queued) AS queued`.execute(db);
  const row = rows[0]!;
  // An account_deleted no endpoint takes is done at once.
  if (Number(row.announcements) > 0) await eraseDoneAnnouncements(db);
  return Number(row.taken);
}

/**
 * Erases `account_deleted` events that no endpoint still has to deliver: the
 * last record of a deleted id goes once it was delivered or given up
 * everywhere (docs/ACCOUNT.md, "Nothing links back").
 */
export async function eraseDoneAnnouncements(
  db: Kysely<Database>,
  eventId?: string,
): Promise<void> {
  let query = db
    .deleteFrom('liveEvents as e')
    .where('e.userId', 'is', null)
    .where('e.webhookNextAt', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhookQueue as q')
            .select(sql`1`.as('one'))
            .whereRef('q.eventId', '=', 'e.id'),
        ),
      ),
    );
  if (eventId !== undefined) query = query.where('e.id', '=', eventId);
  await query.execute();
}

/** An event claimed for one attempt at one endpoint, with what signing it needs. */
export interface ClaimedDelivery extends OutboxEvent {
  endpointId: string;
  url: string;
  /** The secrets to sign with: the current one, and the previous one during a rotation's overlap. */
  secrets: string[];
  /** This attempt's number, from 1. */
  attempt: number;
}

/**
 * Claims up to `limit` deliveries for one endpoint: each the oldest pending
 * event of its user for this endpoint (one user's events go out in order, one
 * at a time), due now, not claimed by another worker, and the endpoint
 * enabled and not retired. A claim is a lease: the row's next attempt moves
 * `leaseSeconds` ahead, so should this worker die, another retries it then.
 * `FOR UPDATE SKIP LOCKED` lets workers on several instances claim at once
 * without ever claiming the same row.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  options: { endpointId: string; limit: number; leaseSeconds: number },
): Promise<ClaimedDelivery[]> {
  const { endpointId } = options;
  const { rows } = await sql<{
    id: string;
    userId: string | null;
    type: string;
    payload: unknown;
    createdAt: Date;
    attempt: number;
    url: string;
    secret: string;
    previousSecret: string | null;
  }>`
    WITH claimed AS (
      UPDATE webhook_queue q
      SET next_at = now() + make_interval(secs => ${options.leaseSeconds}),
        attempts = q.attempts + 1
      WHERE q.endpoint_id = ${endpointId}
        AND q.event_id IN (
          SELECT w.event_id FROM webhook_queue w
          WHERE w.endpoint_id = ${endpointId}
            AND w.next_at <= now()
            AND NOT EXISTS (
              SELECT 1 FROM webhook_queue p
              WHERE p.user_id = w.user_id AND p.endpoint_id = w.endpoint_id
                AND p.event_id < w.event_id)
          ORDER BY w.event_id
          LIMIT ${options.limit}
          FOR UPDATE SKIP LOCKED)
        AND EXISTS (
          SELECT 1 FROM webhook_endpoints e
          WHERE e.id = ${endpointId} AND e.enabled AND e.retired_at IS NULL)
      RETURNING q.event_id, q.attempts
    )
    SELECT ev.id, ev.user_id, ev.type, ev.payload, ev.created_at, c.attempts AS attempt,
      e.url, e.secret,
      CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END
        AS previous_secret
    FROM claimed c
    JOIN live_events ev ON ev.id = c.event_id
    JOIN webhook_endpoints e ON e.id = ${endpointId}`.execute(db);
  return rows
    .map(({ secret, previousSecret, createdAt, ...row }) => ({
      ...row,
      endpointId,
      createdAt: new Date(createdAt),
      secrets: previousSecret ? [secret, previousSecret] : [secret],
    }))
    .sort((a, b) => compareIds(a.id, b.id));
}

/**
 * Records one attempt at one endpoint in the delivery log and reschedules it:
 * `retryInSeconds` null means done (delivered or given up) and the queue row
 * goes. The event may be gone by then (its account was deleted during the
 * POST): the log row is written all the same (no foreign key to the outbox)
 * and there is nothing to reschedule.
 */
export async function recordDeliveryAttempt(
  db: Kysely<Database>,
  attempt: {
    endpointId: string;
    eventId: string;
    eventType: string;
    attempt: number;
    outcome: 'delivered' | 'failed' | 'gave_up';
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    retryInSeconds: number | null;
    /** The event belongs to no user (`account_deleted`): erased once no endpoint still has it. */
    announcement: boolean;
  },
): Promise<void> {
  const logged = db.with('logged', (qc) =>
    qc.insertInto('webhookDeliveries').values({
      eventId: attempt.eventId,
      endpointId: attempt.endpointId,
      eventType: attempt.eventType,
      attempt: attempt.attempt,
      outcome: attempt.outcome,
      statusCode: attempt.statusCode,
      error: attempt.error,
      durationMs: attempt.durationMs,
    }),
  );
  if (attempt.retryInSeconds !== null) {
    await logged
      .updateTable('webhookQueue')
      .set({ nextAt: sql<Date>`now() + make_interval(secs => ${attempt.retryInSeconds})` })
      .where('endpointId', '=', attempt.endpointId)
      .where('eventId', '=', attempt.eventId)
      .execute();
    return;
  }
  await logged
    .deleteFrom('webhookQueue')
    .where('endpointId', '=', attempt.endpointId)
    .where('eventId', '=', attempt.eventId)
    .execute();
  // A statement of its own, after the delete committed: of two endpoints
  // finishing at once, the later one sees neither row and erases it.
  if (attempt.announcement) await eraseDoneAnnouncements(db, attempt.eventId);
}
