import { sql, type Kysely } from 'kysely';
import type { Database, WebhookEndpointRow } from '../schema.js';
import { eraseDoneAnnouncements } from './webhook-queue.js';

/*
 * Webhook endpoints (docs/LIVE.md, "Webhooks"): what the admin API lists,
 * creates, changes, rotates and retires, the endpoint WEBHOOK_URL configures,
 * and the endpoints a worker delivers to. Their delivery queues are in
 * webhook-queue.ts.
 */

/** An endpoint as the admin API shows it: everything but its secrets. */
export type WebhookEndpoint = Omit<WebhookEndpointRow, 'secret' | 'previousSecret'>;

const endpointColumns = [
  'id',
  'source',
  'url',
  'description',
  'eventTypes',
  'enabled',
  'previousSecretExpiresAt',
  'receivesSince',
  'createdAt',
  'updatedAt',
  'retiredAt',
] as const;

/** Every endpoint, retired ones too, oldest first. */
export function listEndpoints(db: Kysely<Database>): Promise<WebhookEndpoint[]> {
  return db
    .selectFrom('webhookEndpoints')
    .select(endpointColumns)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** The endpoint `id`, as the admin API shows it. */
function endpointById(db: Kysely<Database>, id: string) {
  return db.selectFrom('webhookEndpoints').select(endpointColumns).where('id', '=', id);
}

/** One endpoint (undefined when there is none). */
export function findEndpoint(
  db: Kysely<Database>,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  return endpointById(db, id).executeTakeFirst();
}

/** One endpoint, locked for the caller's transaction (undefined when there is none). */
export function lockEndpoint(
  db: Kysely<Database>,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  return endpointById(db, id).forUpdate().executeTakeFirst();
}

/** Serialises creations (the count of endpoints), in the caller's transaction. */
export async function lockEndpointList(trx: Kysely<Database>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${ENDPOINT_LIST_LOCK_KEY})`.execute(trx);
}

/** Arbitrary, fixed. */
const ENDPOINT_LIST_LOCK_KEY = 7_412_003;

/** How many endpoints are not retired. */
export async function countActiveEndpoints(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhookEndpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('retiredAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertEndpoint(
  db: Kysely<Database>,
  endpoint: { url: string; description: string | null; eventTypes: string[]; secret: string },
): Promise<WebhookEndpoint> {
  return db
    .insertInto('webhookEndpoints')
    .values(endpoint)
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
}

export function updateEndpoint(
  db: Kysely<Database>,
  id: string,
  changes: {
    url?: string;
    description?: string | null;
    eventTypes?: string[];
    enabled?: boolean;
  },
): Promise<WebhookEndpoint> {
  return db
    .updateTable('webhookEndpoints')
    .set({ ...changes, updatedAt: sql<Date>`now()` })
    .where('id', '=', id)
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
}

/**
 * A new secret; the current one stays valid (deliveries carry both
 * signatures) for `overlapSeconds`. A previous secret still in its overlap is
 * dropped: only the newest two are ever valid.
 */
export function rotateEndpointSecret(
  db: Kysely<Database>,
  id: string,
  secret: string,
  overlapSeconds: number,
): Promise<WebhookEndpoint> {
  const overlap = overlapSeconds > 0;
  return db
    .updateTable('webhookEndpoints')
    .set((eb) => ({
      previousSecret: overlap ? eb.ref('secret') : null,
      previousSecretExpiresAt: overlap
        ? sql<Date>`now() + make_interval(secs => ${overlapSeconds})`
        : null,
      secret,
      updatedAt: sql<Date>`now()`,
    }))
    .where('id', '=', id)
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
}

/** Retires the endpoint: nothing more is queued for it, and what was queued is dropped. */
export async function retireEndpoint(db: Kysely<Database>, id: string): Promise<WebhookEndpoint> {
  const retired = await db
    .updateTable('webhookEndpoints')
    .set({ retiredAt: sql<Date>`now()`, updatedAt: sql<Date>`now()`, enabled: false })
    .where('id', '=', id)
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
  await db.deleteFrom('webhookQueue').where('endpointId', '=', id).execute();
  await eraseDoneAnnouncements(db);
  return retired;
}

/**
 * Keeps the endpoint of WEBHOOK_URL/WEBHOOK_SECRET in step with the
 * configuration (every start of an instance that has them): its URL, enabled,
 * not retired, receiving every retained event. A changed secret is a
 * rotation: the stored one stays valid for `overlapSeconds`. Returns the row
 * before and after (equal when nothing changed).
 */
export async function syncConfigEndpoint(
  db: Kysely<Database>,
  config: { url: string; secret: string; overlapSeconds: number },
): Promise<{ before: WebhookEndpoint | undefined; after: WebhookEndpoint }> {
  return db.transaction().execute(async (trx) => {
    // Instances starting together: the first inserts, the others wait on its row.
    await sql`SELECT pg_advisory_xact_lock(${CONFIG_ENDPOINT_LOCK_KEY})`.execute(trx);
    const current = await trx
      .selectFrom('webhookEndpoints')
      .select([...endpointColumns, 'secret'])
      .where('source', '=', 'config')
      .executeTakeFirst();
    if (!current) {
      const after = await trx
        .insertInto('webhookEndpoints')
        .values({
          source: 'config',
          url: config.url,
          description: 'WEBHOOK_URL',
          secret: config.secret,
          receivesSince: sql<Date>`'-infinity'::timestamptz`,
        })
        .returning(endpointColumns)
        .executeTakeFirstOrThrow();
      return { before: undefined, after };
    }
    const { secret, ...before } = current;
    const unchanged =
      secret === config.secret &&
      before.url === config.url &&
      before.enabled &&
      before.retiredAt === null;
    if (unchanged) return { before, after: before };
    const rotated = secret !== config.secret && config.overlapSeconds > 0;
    const after = await trx
      .updateTable('webhookEndpoints')
      .set({
        url: config.url,
        enabled: true,
        retiredAt: null,
        updatedAt: sql<Date>`now()`,
        ...(secret !== config.secret && {
          secret: config.secret,
          previousSecret: rotated ? secret : null,
          previousSecretExpiresAt: rotated
            ? sql<Date>`now() + make_interval(secs => ${config.overlapSeconds})`
            : null,
        }),
      })
      .where('id', '=', before.id)
      .returning(endpointColumns)
      .executeTakeFirstOrThrow();
    return { before, after };
  });
}

/** Arbitrary, fixed: serialises instances seeding the configured endpoint. */
const CONFIG_ENDPOINT_LOCK_KEY = 7_412_002;

/** The endpoints a worker delivers to: not retired (a disabled one is paused, its queue kept). */
export async function deliveringEndpointIds(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('webhookEndpoints')
    .select('id')
    .where('retiredAt', 'is', null)
    .where('enabled', '=', true)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}
