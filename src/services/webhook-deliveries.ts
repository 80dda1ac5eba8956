import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { recordAudit } from '../../db/queries/audit.js';
import {
  deliveryLogPage,
  endpointSigning,
  eventRetained,
  logTestDelivery,
  loggedAttempts,
  newEventId,
  queuedDelivery,
  requeueDelivery,
  type DeliveryOutcome,
} from '../../db/queries/webhook-log.js';
import {
  findEndpoint,
  lockEndpoint,
  type WebhookEndpoint,
} from '../../db/queries/webhook-endpoints.js';
import type { Database, WebhookDeliveryRow } from '../../db/schema.js';
import { AppError } from '../app-error.js';
import { DELIVERY_TIMEOUT_MS, postDelivery } from '../live/webhooks.js';
import { webhookDispatcher } from '../live/webhook-target.js';
import type { AllowedNetworks } from '../domain/network.js';
import { toPage, type Page } from './page.js';

/*
 * An endpoint's delivery log, redelivery and test events (docs/LIVE.md,
 * "Delivery log"), for admin clients. A redelivery goes through the queue
 * as every delivery does (signing, order per fan, the log); a test event is
 * POSTed at once, so the answer says what the receiver made of it. Each is
 * audited.
 */

const TARGET_KIND = 'webhook_endpoint';
const TEST_EVENT_TYPE = 'webhook_test';

/** One page of the endpoint's delivery log, newest first (404 for no such endpoint). */
export async function deliveryLog(
  deps: { db: Kysely<Database> },
  endpointId: string,
  query: {
    limit: number;
    beforeId?: string | undefined;
    outcome?: DeliveryOutcome | undefined;
    eventId?: string | undefined;
  },
): Promise<Page<WebhookDeliveryRow>> {
  if (!(await findEndpoint(deps.db, endpointId))) throw notFound(endpointId);
  const rows = await deliveryLogPage(deps.db, endpointId, { ...query, limit: query.limit + 1 });
  return toPage(rows, query.limit, (last) => String(last.id));
}

/** What a redelivery did. */
export interface Redelivery {
  eventId: string;
  /** `queued`: due now; `already_queued`: it was still to be delivered (nothing changed). */
  status: 'queued' | 'already_queued';
  /** The attempt it will be (the log's count so far, plus one). */
  attempt: number;
  nextAt: Date;
}

/**
 * Sends an event the endpoint was sent before once more: queued again, due
 * now, with the next attempt number. An event still queued is left as it
 * is. Refused for a retired endpoint, an event never sent to this endpoint
 * (404) and one the outbox no longer holds (409: retention, or its account
 * was deleted). A paused endpoint gets it once enabled. Past the event's
 * retry window (WEBHOOK_RETRY_FOR_SECONDS) a failed redelivery is given up
 * at once, not retried.
 */
export async function redeliver(
  deps: { db: Kysely<Database> },
  actor: string,
  endpointId: string,
  eventId: string,
): Promise<Redelivery> {
  return deps.db.transaction().execute(async (trx) => {
    // Locked: a retirement (which empties its queue) comes before or after, never between.
    await activeEndpoint(trx, endpointId, lockEndpoint);
    const queued = await queuedDelivery(trx, endpointId, eventId);
    if (queued) {
      return { eventId, status: 'already_queued', attempt: queued.attempts + 1, ...queued };
    }
    const { attempts, eventType } = await loggedAttempts(trx, endpointId, eventId);
    if (attempts === 0) {
      throw new AppError(
        'NOT_FOUND',
        `The webhook endpoint ${endpointId} was never sent event ${eventId}`,
      );
    }
    if (eventType === TEST_EVENT_TYPE) {
      throw new AppError(
        'WEBHOOK_ENDPOINT_CONFLICT',
        `Event ${eventId} was a test event, never sent again: send a new one`,
      );
    }
    if (!(await requeueDelivery(trx, endpointId, eventId, attempts))) {
      // Queued meanwhile by another redelivery, or gone from the outbox.
      if (!(await eventRetained(trx, eventId))) {
        throw new AppError(
          'WEBHOOK_ENDPOINT_CONFLICT',
          `Event ${eventId} is no longer kept (LIVE_RETENTION_DAYS, or its account was deleted): ` +
            'it cannot be sent again',
        );
      }
    }
    const now = await queuedDelivery(trx, endpointId, eventId);
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.redeliver',
      targetKind: TARGET_KIND,
      targetKey: endpointId,
      after: { eventId, attempt: attempts + 1 },
    });
    return { eventId, status: 'queued', attempt: attempts + 1, nextAt: now?.nextAt ?? new Date() };
  });
}

/** What a test event came to. */
export interface TestDelivery {
  delivery: WebhookDeliveryRow;
  /** The body POSTed, as the receiver got it. */
  message: TestEventMessage;
}

/** The body of a `webhook_test` POST (WebhookTestEventSchema, openapi.json `webhooks`). */
export interface TestEventMessage {
  id: string;
  type: 'webhook_test';
  timestamp: string;
  data: { endpointId: string };
}

/**
 * POSTs a `webhook_test` event to the endpoint now, signed as every
 * delivery is (both secrets during a rotation's overlap), whatever its
 * event-type filter and also while it is paused, and logs the one attempt
 * (never retried): `delivered` on a 2xx, else `gave_up` with the status or
 * the error. Refused for a retired endpoint.
 */
export async function sendTestEvent(
  deps: {
    db: Kysely<Database>;
    clock: () => Date;
    config: { webhookAllowedNetworks: AllowedNetworks };
  },
  actor: string,
  endpointId: string,
  options: { timeoutMs?: number } = {},
): Promise<TestDelivery> {
  await activeEndpoint(deps.db, endpointId, findEndpoint);
  const signing = await endpointSigning(deps.db, endpointId);
  if (!signing) throw notFound(endpointId);
  const message: TestEventMessage = {
    id: await newEventId(deps.db),
    type: TEST_EVENT_TYPE,
    timestamp: deps.clock().toISOString(),
    data: { endpointId },
  };
  // The worker's target rules (src/live/webhook-target.ts), on a pool of its own.
  const dispatcher = webhookDispatcher(deps.config.webhookAllowedNetworks);
  const posted = await postDelivery(
    {
      url: signing.url,
      eventId: message.id,
      body: JSON.stringify(message),
      signers: signing.secrets.map((secret) => new Webhook(secret)),
    },
    { timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS, dispatcher },
  ).finally(() => dispatcher.close());
  const delivery = await deps.db.transaction().execute(async (trx) => {
    const logged = await logTestDelivery(trx, {
      endpointId,
      eventId: message.id,
      outcome: posted.error === null ? 'delivered' : 'gave_up',
      ...posted,
    });
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.test',
      targetKind: TARGET_KIND,
      targetKey: endpointId,
      after: { eventId: message.id, outcome: logged.outcome, statusCode: logged.statusCode },
    });
    return logged;
  });
  return { delivery, message };
}

async function activeEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  read: typeof findEndpoint,
): Promise<WebhookEndpoint> {
  const endpoint = await read(db, endpointId);
  if (!endpoint) throw notFound(endpointId);
  if (endpoint.retiredAt) {
    throw new AppError(
      'WEBHOOK_ENDPOINT_CONFLICT',
      `The webhook endpoint ${endpointId} is retired: nothing is sent to it`,
    );
  }
  return endpoint;
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `There is no webhook endpoint ${id}`);
}
