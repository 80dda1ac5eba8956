import { SpanKind } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { fetch, type Agent } from 'undici';
import { deliveringEndpointIds } from '../../db/queries/webhook-endpoints.js';
import {
  claimDeliveries,
  fanOutEvents,
  oldestUndeliveredAge,
  recordDeliveryAttempt,
  type ClaimedDelivery,
} from '../../db/queries/webhook-queue.js';
import type { Database } from '../../db/schema.js';
import type { Logger } from '../logger.js';
import { metrics } from '../metrics.js';
import { toLiveEventMessage } from './messages.js';
import { inSpan } from '../telemetry/tracing.js';
import type { AllowedNetworks } from '../domain/network.js';
import { TargetRefusedError, webhookDispatcher, type Resolver } from './webhook-target.js';

export interface WebhookWorkerOptions {
  /** How often the queues are checked when no event wakes the worker. */
  pollMs?: number;
  /** Deliveries in flight at once per endpoint (each of a different user), on this instance. */
  batch?: number;
  /** First retry delay; each further failure doubles it, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A receiver that has not answered by then counts as failed. */
  timeoutMs?: number;
  /**
   * A claim is a lease: if this worker dies mid-POST, another retries after
   * this long. Longer than `timeoutMs`, so a lease outlives its POST (an
   * account's deletion is announced after the lease of its event in flight).
   */
  leaseSeconds?: number;
  /** How long the list of endpoints is reused before it is read again. */
  endpointsTtlMs?: number;
  /** Outbox events queued for the endpoints per fan-out. */
  fanOutBatch?: number;
  /** How targets' names are resolved (webhook-target.ts); the system resolver by default. */
  resolve?: Resolver;
}

/** How long a receiver has to answer a delivery, by default. */
export const DELIVERY_TIMEOUT_MS = 10_000;

const DEFAULTS: Required<Omit<WebhookWorkerOptions, 'resolve'>> = {
  pollMs: 1_000,
  batch: 50,
  baseDelayMs: 1_000,
  maxDelayMs: 60 * 60_000,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  leaseSeconds: 60,
  endpointsTtlMs: 1_000,
  fanOutBatch: 1_000,
};

/** The delay before attempt `attempt + 1`, after `attempt` failures: 1 s, 2 s, 4 s, … capped. */
export function retryDelayMs(
  attempt: number,
  options: Pick<Required<WebhookWorkerOptions>, 'baseDelayMs' | 'maxDelayMs'>,
): number {
  return Math.min(options.baseDelayMs * 2 ** Math.max(0, attempt - 1), options.maxDelayMs);
}

/**
 * The headers of one delivery, per Standard Webhooks: `webhook-id` (the
 * event id, the receiver's dedupe key), `webhook-timestamp`, and
 * `webhook-signature`: `v1,<base64 HMAC>` per secret, space-separated (the
 * current secret first, then the previous one during a rotation's overlap).
 */
export function deliveryHeaders(
  delivery: { eventId: string; body: string; signers: readonly Webhook[] },
  now: Date,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'user-profile-service-webhooks',
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': delivery.signers
      .map((signer) => signer.sign(delivery.eventId, now, delivery.body))
      .join(' '),
  };
}

/**
 * POSTs every outbox event to every webhook endpoint whose filter matches
 * (docs/LIVE.md, "Webhooks"), signed per Standard Webhooks. Each round fans
 * due outbox events out into the endpoints' queues, then claims, per
 * endpoint, as many deliveries as that endpoint has free slots on this
 * instance: a slow or failing endpoint fills only its own slots and never
 * holds back another's deliveries. Per endpoint, one user's events go out one
 * at a time in id order; different users' go out concurrently. At least
 * once: a delivery is marked done only after a 2xx, so a crash between the
 * two sends it again (receivers dedupe on `webhook-id`). Failures are retried
 * with exponential backoff until WEBHOOK_RETRY_FOR_SECONDS after the event,
 * then given up. Every attempt is logged in webhook_deliveries. Any number of
 * instances may run a worker: `FOR UPDATE SKIP LOCKED` claims give each
 * (endpoint, event) to exactly one of them at a time.
 */
export class WebhookWorker {
  readonly #options: Required<Omit<WebhookWorkerOptions, 'resolve'>>;
  /** Every POST goes through it: it connects only to addresses the target rules allow. */
  #dispatcher: Agent;
  readonly #signers = new Map<string, Webhook>();
  /** Deliveries in flight on this instance, per endpoint. */
  readonly #inFlight = new Map<string, Set<Promise<void>>>();
  readonly #newDispatcher: () => Agent;
  #endpoints: { ids: string[]; readAt: number } | undefined;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: { retryForSeconds: number; allowedNetworks: AllowedNetworks },
    private readonly logger: Logger,
    options: WebhookWorkerOptions = {},
  ) {
    const { resolve, ...rest } = options;
    this.#options = { ...DEFAULTS, ...rest };
    this.#newDispatcher = () => webhookDispatcher(settings.allowedNetworks, { resolve });
    this.#dispatcher = this.#newDispatcher();
    if (this.#options.leaseSeconds * 1000 <= this.#options.timeoutMs) {
      throw new Error('WebhookWorker: leaseSeconds must outlast timeoutMs');
    }
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    if (this.#dispatcher.closed) this.#dispatcher = this.#newDispatcher();
    this.#loop = this.#run();
  }

  /** Checks the queues now (a committed event is waiting, or a delivery ended). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Reads the endpoints again on the next round (one changed on this instance). */
  endpointsChanged(): void {
    this.#endpoints = undefined;
    this.wake();
  }

  /** Stops claiming; the POSTs in flight finish or time out. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#loop;
    await Promise.all([...this.#inFlight.values()].flatMap((set) => [...set]));
    if (!this.#dispatcher.closed) await this.#dispatcher.close();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let more = false;
      try {
        more = (await this.#round()).more;
      } catch (err) {
        this.logger.warn({ err }, 'webhooks: a delivery round failed');
      }
      // An endpoint that filled its free slots may have more due: go again at once.
      if (!more) await this.#sleep(this.#options.pollMs);
    }
  }

  /**
   * Seconds the oldest event not yet delivered (nor given up) to an endpoint
   * in service has waited, fan-out included; 0 when none waits.
   */
  lagSeconds(): Promise<number> {
    return oldestUndeliveredAge(this.db);
  }

  /** One round, waiting for the POSTs it starts; returns how many deliveries were claimed. */
  async deliverRound(): Promise<number> {
    const { started } = await this.#round();
    await Promise.all(started);
    return started.length;
  }

  async #round(): Promise<{ started: Promise<void>[]; more: boolean }> {
    const endpoints = await this.#endpointIds();
    const started: Promise<void>[] = [];
    let more = false;
    if (endpoints.length === 0) return { started, more };
    await fanOutEvents(this.db, this.#options.fanOutBatch);
    for (const endpointId of endpoints) {
      const inFlight = this.#inFlight.get(endpointId) ?? new Set();
      this.#inFlight.set(endpointId, inFlight);
      const free = this.#options.batch - inFlight.size;
      if (free <= 0) continue;
      const claimed = await claimDeliveries(this.db, {
        endpointId,
        limit: free,
        leaseSeconds: this.#options.leaseSeconds,
      });
      if (claimed.length === free) more = true;
      for (const delivery of claimed) {
        const done: Promise<void> = this.#deliver(delivery)
          .catch((err: unknown) => {
            this.logger.warn({ err, eventId: delivery.id, endpointId }, 'webhooks: not logged');
          })
          .finally(() => {
            inFlight.delete(done);
            this.wake();
          });
        inFlight.add(done);
        started.push(done);
      }
    }
    return { started, more };
  }

  async #endpointIds(): Promise<string[]> {
    const now = Date.now();
    if (!this.#endpoints || now - this.#endpoints.readAt >= this.#options.endpointsTtlMs) {
      this.#endpoints = { ids: await deliveringEndpointIds(this.db), readAt: now };
    }
    return this.#endpoints.ids;
  }

  #signer(secret: string): Webhook {
    let signer = this.#signers.get(secret);
    if (!signer) {
      if (this.#signers.size > 100) this.#signers.clear();
      signer = new Webhook(secret);
      this.#signers.set(secret, signer);
    }
    return signer;
  }

  /**
   * Each attempt is the root of a trace of its own (docs/OPERATIONS.md, Traces):
   * its span holds the POST, which carries the W3C `traceparent` of that
   * trace to the receiver (the fetch instrumentation adds it), and the SQL
   * that records the attempt.
   */
  #deliver(delivery: ClaimedDelivery): Promise<void> {
    return inSpan(
      `webhook ${delivery.type}`,
      {
        root: true,
        kind: SpanKind.PRODUCER,
        attributes: {
          'webhook.id': delivery.id,
          'webhook.event_type': delivery.type,
          'webhook.endpoint_id': delivery.endpointId,
          'webhook.attempt': delivery.attempt,
        },
      },
      () => this.#attempt(delivery),
    );
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const { statusCode, error, durationMs } = await postDelivery(
      {
        url: delivery.url,
        eventId: delivery.id,
        body: JSON.stringify(toLiveEventMessage(delivery)),
        signers: delivery.secrets.map((secret) => this.#signer(secret)),
      },
      { timeoutMs: this.#options.timeoutMs, dispatcher: this.#dispatcher },
    );
    const delayMs = retryDelayMs(delivery.attempt, this.#options);
    const deadline = delivery.createdAt.getTime() + this.settings.retryForSeconds * 1000;
    const outcome =
      error === null ? 'delivered' : Date.now() + delayMs > deadline ? 'gave_up' : 'failed';
    metrics.webhookDelivery(outcome);
    if (outcome !== 'delivered') {
      this.logger.warn(
        {
          eventId: delivery.id,
          endpointId: delivery.endpointId,
          attempt: delivery.attempt,
          statusCode,
          error,
          outcome,
        },
        'webhooks: delivery failed',
      );
    }
    await recordDeliveryAttempt(this.db, {
      endpointId: delivery.endpointId,
      eventId: delivery.id,
      eventType: delivery.type,
      attempt: delivery.attempt,
      outcome,
      statusCode,
      error,
      durationMs,
      retryInSeconds: outcome === 'failed' ? delayMs / 1000 : null,
      announcement: delivery.userId === null,
    });
  }

  async #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
    this.#woken = false;
  }
}

/** What one POST of a delivery came to: the receiver's status, or why there was none. */
export interface PostResult {
  statusCode: number | null;
  /** null when the receiver answered 2xx. */
  error: string | null;
  durationMs: number;
}

/**
 * POSTs one signed delivery (deliveryHeaders) through `dispatcher` (a
 * webhookDispatcher: it connects only to addresses the target rules allow)
 * and waits for the status at most `timeoutMs`; redirects are not followed
 * (a 3xx is a failure). The one way a webhook leaves the service: the
 * worker's deliveries and an admin's test event (src/services/webhook-deliveries.ts).
 */
export async function postDelivery(
  delivery: { url: string; eventId: string; body: string; signers: readonly Webhook[] },
  { timeoutMs, dispatcher }: { timeoutMs: number; dispatcher: Agent },
): Promise<PostResult> {
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      headers: deliveryHeaders(delivery, new Date()),
      body: delivery.body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
      dispatcher,
    });
    statusCode = response.status;
    await response.body?.cancel();
    if (!response.ok) error = `HTTP ${response.status}`;
  } catch (cause) {
    error = describe(cause);
  }
  return { statusCode, error, durationMs: Math.round(performance.now() - started) };
}

/** A one-line reason for a failed request (the cause's code when there is one, e.g. ECONNREFUSED). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.cause instanceof TargetRefusedError) return error.cause.message;
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (error.name === 'TimeoutError') return 'timeout';
  return error.message || error.name;
}
