import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import {
  claimWebhookEvents,
  recordWebhookAttempt,
  type ClaimedEvent,
} from '../../db/queries/events.js';
import type { Database } from '../../db/schema.js';
import type { WebhookConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { toLiveEventMessage } from './messages.js';

export interface WebhookWorkerOptions {
  /** How often the queue is checked when no event wakes the worker. */
  pollMs?: number;
  /** Events claimed (and POSTed concurrently, each of a different user) per round. */
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
}

const DEFAULTS: Required<WebhookWorkerOptions> = {
  pollMs: 1_000,
  batch: 50,
  baseDelayMs: 1_000,
  maxDelayMs: 60 * 60_000,
  timeoutMs: 10_000,
  leaseSeconds: 60,
};

/** The delay before attempt `attempt + 1`, after `attempt` failures: 1 s, 2 s, 4 s, … capped. */
export function retryDelayMs(
  attempt: number,
  options: Pick<Required<WebhookWorkerOptions>, 'baseDelayMs' | 'maxDelayMs'>,
): number {
  return Math.min(options.baseDelayMs * 2 ** Math.max(0, attempt - 1), options.maxDelayMs);
}

/**
 * POSTs every outbox event to WEBHOOK_URL, signed per Standard Webhooks
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC>`).
 * One user's events go out one at a time in id order (a user's next event
 * waits until the previous one is delivered or given up); different users'
 * go out concurrently. At least once: an event is marked delivered only after
 * a 2xx, so a crash between the two sends it again (receivers dedupe on
 * `webhook-id`). Failures are retried with exponential backoff until
 * WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. Every attempt is
 * logged in webhook_deliveries. Any number of instances may run a worker:
 * `FOR UPDATE SKIP LOCKED` claims give each event to exactly one of them.
 */
export class WebhookWorker {
  readonly #options: Required<WebhookWorkerOptions>;
  readonly #signer: Webhook;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
    options: WebhookWorkerOptions = {},
  ) {
    this.#options = { ...DEFAULTS, ...options };
    if (this.#options.leaseSeconds * 1000 <= this.#options.timeoutMs) {
      throw new Error('WebhookWorker: leaseSeconds must outlast timeoutMs');
    }
    this.#signer = new Webhook(config.secret);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Checks the queue now (a committed event is waiting). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Stops after the round in progress (its POSTs finish or time out). */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimed = 0;
      try {
        claimed = await this.deliverRound();
      } catch (err) {
        this.logger.warn({ err }, 'webhooks: a delivery round failed');
      }
      // A full batch means more is due: go again at once.
      if (claimed < this.#options.batch) await this.#sleep(this.#options.pollMs);
    }
  }

  /** Claims due events and POSTs them; returns how many were claimed. */
  async deliverRound(): Promise<number> {
    const events = await claimWebhookEvents(this.db, {
      limit: this.#options.batch,
      leaseSeconds: this.#options.leaseSeconds,
    });
    await Promise.all(events.map((event) => this.#deliver(event)));
    return events.length;
  }

  async #deliver(event: ClaimedEvent): Promise<void> {
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const body = JSON.stringify(toLiveEventMessage(event));
      const now = new Date();
      const response = await fetch(this.config.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'user-profile-service-webhooks',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': this.#signer.sign(event.id, now, body),
        },
        body,
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        redirect: 'manual',
      });
      statusCode = response.status;
      await response.body?.cancel();
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (cause) {
      error = describe(cause);
    }
    const durationMs = Math.round(performance.now() - started);
    const delayMs = retryDelayMs(event.attempt, this.#options);
    const deadline = event.createdAt.getTime() + this.config.retryForSeconds * 1000;
    const outcome =
      error === null ? 'delivered' : Date.now() + delayMs > deadline ? 'gave_up' : 'failed';
    if (outcome !== 'delivered') {
      this.logger.warn(
        { eventId: event.id, attempt: event.attempt, statusCode, error, outcome },
        'webhooks: delivery failed',
      );
    }
    await recordWebhookAttempt(this.db, {
      eventId: event.id,
      attempt: event.attempt,
      outcome,
      statusCode,
      error,
      durationMs,
      retryInSeconds: outcome === 'failed' ? delayMs / 1000 : null,
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

/** A one-line reason for a failed request (the cause's code when there is one, e.g. ECONNREFUSED). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (error.name === 'TimeoutError') return 'timeout';
  return error.message || error.name;
}
