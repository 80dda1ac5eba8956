import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/**
 * The NOTIFY channel of the outbox. A write's notification is sent by the
 * statement that inserts its events, so PostgreSQL delivers it on commit only
 * (and never for a write that rolled back).
 */
export const LIVE_CHANNEL = 'live_events';

/**
 * NOTIFY payloads must stay under 8000 bytes. A write whose events fit (every
 * write today: at most a dozen small events) carries them in full, so no
 * instance reads the outbox to fan them out; a bigger one carries only the id
 * range, and listeners read those events from the outbox.
 */
const NOTIFY_FULL_LIMIT = 7900;

/** An event as the outbox stores it; `payload` is the type's data. */
export interface OutboxEvent {
  id: string;
  /** null only on `account_deleted` (the deleted id is in the payload). */
  userId: string | null;
  type: string;
  payload: unknown;
  createdAt: Date;
}

/**
 * What a notification on LIVE_CHANNEL carries (JSON): a write statement's
 * events, by fan (`w`), or, when they do not fit, each fan's id range
 * (`r`); one fan's events or id range (what a single write sent before
 * statements wrote many fans, still read); or the id of an account that was
 * deleted.
 */
export type OutboxNotification =
  | { w: { u: string; e: NotifiedEvent[] }[] }
  | { r: [userId: string, from: string, to: string][] }
  | { u: string; e: NotifiedEvent[] }
  | { u: string; from: string; to: string }
  | { deleted: string };

interface NotifiedEvent {
  id: string;
  type: string;
  payload: unknown;
  at: string;
}

/**
 * The NOTIFY of one statement's events: a SELECT over `source`, a CTE (or
 * table) of inserted live_events rows of any number of fans. One
 * notification per statement, none when `source` is empty: the events in
 * full when they fit, else each fan's id range (a statement writes at most
 * MAX_FANS_PER_STATEMENT fans, whose ranges always fit). Reference it from
 * the statement's final SELECT: a plain SELECT CTE that nothing reads is
 * never run.
 */
export function notificationOf(source: string): RawBuilder<unknown> {
  const rows = sql.id(source);
  return sql`SELECT pg_notify(${LIVE_CHANNEL},
      CASE WHEN octet_length(m.whole) <= ${NOTIFY_FULL_LIMIT} THEN m.whole ELSE m.ids END)
    FROM (
      SELECT json_build_object('w', json_agg(json_build_object('u', x.u, 'e', x.e) ORDER BY x.first)
        )::text AS whole,
        json_build_object('r', json_agg(json_build_array(x.u, x.first::text, x.last::text)
          ORDER BY x.first))::text AS ids
      FROM (
        SELECT r.user_id::text AS u, min(r.id) AS first, max(r.id) AS last,
          json_agg(json_build_object(
            'id', r.id::text, 'type', r.type, 'payload', r.payload, 'at', r.created_at)
            ORDER BY r.id) AS e
        FROM ${rows} r GROUP BY r.user_id
      ) x
      HAVING count(*) > 0
    ) m`;
}

/** The most fans one write statement takes: their id ranges fit in one notification. */
export const MAX_FANS_PER_STATEMENT = 100;

/**
 * The events a notification announces, by fan: in full from the message,
 * or read from the outbox (one query) for the fans `wanted` says this
 * instance has listeners for (the others get an empty list).
 */
export async function notifiedEvents(
  db: Kysely<Database>,
  message: Exclude<OutboxNotification, { deleted: string }>,
  wanted: (userId: string) => boolean,
): Promise<Map<string, OutboxEvent[]>> {
  const out = new Map<string, OutboxEvent[]>();
  const full = (u: string, e: NotifiedEvent[]) =>
    out.set(
      u,
      e.map((event) => ({
        id: event.id,
        userId: u,
        type: event.type,
        payload: event.payload,
        createdAt: new Date(event.at),
      })),
    );
  if ('w' in message) for (const { u, e } of message.w) full(u, e);
  else if ('e' in message) full(message.u, message.e);
  else {
    const ranges = 'r' in message ? message.r : [[message.u, message.from, message.to] as const];
    const read = ranges.filter(([u]) => wanted(u));
    for (const [u] of ranges) out.set(u, []);
    if (read.length > 0) {
      const events = await db
        .selectFrom('liveEvents')
        .select(outboxColumns)
        .where((eb) =>
          eb.or(
            read.map(([u, from, to]) =>
              eb.and([eb('userId', '=', u), eb('id', '>=', from), eb('id', '<=', to)]),
            ),
          ),
        )
        .orderBy('id')
        .execute();
      for (const event of events) out.get(event.userId!)?.push(event);
    }
  }
  return out;
}

/**
 * The statement that appends one user's events to the outbox and notifies
 * listeners, for writes outside the user write statement (tools, tests).
 */
export function appendEvents(
  userId: string,
  events: readonly { type: string; payload: unknown }[],
): RawBuilder<{ notified: string }> {
  const rows = JSON.stringify(
    events.map((event, ord) => ({ ord, type: event.type, payload: event.payload })),
  );
  return sql<{ notified: string }>`WITH inserted AS (
      INSERT INTO live_events (user_id, type, payload)
      SELECT ${userId}::uuid, e.type, e.payload
      FROM jsonb_to_recordset(${rows}::jsonb) AS e(ord integer, type text, payload jsonb)
      ORDER BY e.ord
      RETURNING id, user_id, type, payload, created_at
    ),
    notified AS (${notificationOf('inserted')})
    SELECT count(*) AS notified FROM notified`;
}

/** Runs `appendEvents`; nothing happens for an empty list. */
export async function recordEvents(
  trx: Kysely<Database>,
  userId: string,
  events: readonly { type: string; payload: unknown }[],
): Promise<void> {
  if (events.length === 0) return;
  await appendEvents(userId, events).execute(trx);
}

const outboxColumns = ['id', 'userId', 'type', 'payload', 'createdAt'] as const;

/** The user's events after `afterId` (exclusive), oldest first, at most `limit`. */
export function eventsAfter(
  db: Kysely<Database>,
  userId: string,
  afterId: string,
  limit: number,
): Promise<OutboxEvent[]> {
  return db
    .selectFrom('liveEvents')
    .select(outboxColumns)
    .where('userId', '=', userId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Whether the outbox still holds event `id` of this user (not pruned, not someone else's). */
export async function hasEvent(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('liveEvents')
    .select('id')
    .where('userId', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The user's newest event id (`'0'` when none is retained), or undefined when
 * the user does not exist (the account was deleted): one statement.
 */
export async function newestEventOf(
  db: Kysely<Database>,
  userId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('users as u')
    .select((eb) =>
      eb
        .selectFrom('liveEvents as e')
        .select('e.id')
        .whereRef('e.userId', '=', 'u.id')
        .orderBy('e.id', 'desc')
        .limit(1)
        .as('newest'),
    )
    .where('u.id', '=', userId)
    .executeTakeFirst();
  return row && (row.newest ?? '0');
}

/** Arbitrary, fixed: the transaction-level advisory lock that keeps pruning to one instance at a time. */
const PRUNE_LOCK_KEY = 7_412_001;

/**
 * Applies the retention: deletes events older than `maxAgeSeconds`, then, for
 * every user with an event since `touchedSince`, all but their newest
 * `keepPerUser`; and webhook delivery log rows older than `maxAgeSeconds`
 * (the log outlives the events it records, see `recordWebhookAttempt`). One
 * transaction under a transaction-level advisory lock, so instances running
 * this at once do the work once (the others return null); a transaction
 * lock, unlike a session lock, is safe behind a transaction pooler.
 * Returns how many events were deleted.
 */
export function pruneEvents(
  db: Kysely<Database>,
  options: { maxAgeSeconds: number; keepPerUser: number; touchedSince: Date },
): Promise<number | null> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_xact_lock(${PRUNE_LOCK_KEY}) as locked`.execute(trx);
    if (!rows[0]?.locked) return null;
    const cutoff = sql<Date>`now() - make_interval(secs => ${options.maxAgeSeconds})`;
    const old = await trx
      .deleteFrom('liveEvents')
      .where('createdAt', '<', cutoff)
      .executeTakeFirst();
    await trx.deleteFrom('webhookDeliveries').where('createdAt', '<', cutoff).execute();
    const touched = trx
      .selectFrom('liveEvents')
      .select('userId')
      .distinct()
      .where('createdAt', '>=', options.touchedSince);
    const excess = await trx
      .deleteFrom('liveEvents as e')
      .where((eb) =>
        eb(
          'e.id',
          '<=',
          eb
            .selectFrom('liveEvents as k')
            .select('k.id')
            .whereRef('k.userId', '=', 'e.userId')
            .orderBy('k.id', 'desc')
            .offset(options.keepPerUser)
            .limit(1),
        ),
      )
      .where('e.userId', 'in', touched)
      .executeTakeFirst();
    return Number(old.numDeletedRows) + Number(excess.numDeletedRows);
  });
}

/** Orders decimal id strings numerically (bigint ids arrive as text). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Announces an account's deletion to webhook receivers, in the deleting
 * transaction: an event that belongs to no user (the users row is about to
 * go, and the account's other events with it), carrying the deleted id so
 * other services can erase their copies. Not sent to live streams: the
 * account's streams end with the account.
 *
 * It must reach each endpoint after every event of the account, but the
 * account's events are about to be deleted, so the per-user order of the
 * queues cannot hold it back: one of them may be in a worker's hands right
 * now (claimed, its POST not yet logged), and its POST may still land.
 * The account's events not yet fanned out and its queued deliveries are
 * locked first (a fan-out or claim in progress commits before this reads
 * them; a later claim skips them), and the announcement is due when the
 * lease of the delivery in flight, if any, ends.
 */
export async function recordAccountDeleted(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx
    .selectFrom('liveEvents')
    .select('id')
    .where('userId', '=', userId)
    .where('webhookNextAt', 'is not', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  await trx
    .selectFrom('webhookQueue')
    .select('eventId')
    .where('userId', '=', userId)
    .orderBy('endpointId')
    .orderBy('eventId')
    .forUpdate()
    .execute();
  // Claimed more often than logged: its POST is in flight until the lease ends.
  const inFlight = await trx
    .selectFrom('webhookQueue as q')
    .select((eb) => eb.fn.max('q.nextAt').as('until'))
    .where('q.userId', '=', userId)
    .where((eb) =>
      eb(
        'q.attempts',
        '>',
        eb
          .selectFrom('webhookDeliveries as d')
          .select((d) => d.fn.countAll<number>().as('n'))
          .whereRef('d.eventId', '=', 'q.eventId')
          .whereRef('d.endpointId', '=', 'q.endpointId'),
      ),
    )
    .executeTakeFirst();
  await trx
    .insertInto('liveEvents')
    .values({
      userId: null,
      type: 'account_deleted',
      payload: JSON.stringify({ userId }),
      webhookNextAt: sql<Date>`greatest(now(), ${inFlight?.until ?? null}::timestamptz)`,
    })
    .execute();
}

/**
 * Tells every instance, on commit, that the account is gone: its open
 * streams end, and caches of its id (src/auth/user-ids.ts) forget it. Run it
 * in the deleting transaction, so nothing is announced for a deletion that
 * rolled back.
 */
export async function notifyAccountDeleted(trx: Kysely<Database>, userId: string): Promise<void> {
  const message: OutboxNotification = { deleted: userId };
  await sql`SELECT pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(message)})`.execute(trx);
}
