import type { DatabaseHandle } from '../../db/database.js';
import { pruneEvents } from '../../db/queries/events.js';
import { syncConfigEndpoint } from '../../db/queries/webhook-endpoints.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { getHeapStatistics } from 'node:v8';
import { LiveBoards, type BoardOptions } from './boards.js';
import { streamCapacity, streamHeapBudget } from './capacity.js';
import { LiveHub } from './hub.js';
import { WebhookWorker, type WebhookWorkerOptions } from './webhooks.js';

/** How long a replaced WEBHOOK_SECRET still signs deliveries beside the new one. */
const CONFIG_SECRET_OVERLAP_SECONDS = 86_400;

/** How often the outbox retention runs (any instance; one at a time). */
const PRUNE_EVERY_MS = 10 * 60_000;

/** The live parts of one instance: fan-out, board reads, outbox retention, webhooks. */
export interface Live {
  hub: LiveHub;
  boards: LiveBoards;
  /** Delivers to every webhook endpoint; undefined when this instance runs no worker. */
  webhooks: WebhookWorker | undefined;
  /**
   * Keeps the endpoint of WEBHOOK_URL/WEBHOOK_SECRET in step with the
   * configuration, then opens the listening connection and starts the
   * retention job and the webhook worker.
   */
  start(): Promise<void>;
  /** Ends every stream (clients reconnect elsewhere), stops the jobs, stops listening. */
  stop(): Promise<void>;
  /** Applies the retention once (the job runs this every 10 minutes). */
  prune(): Promise<number | null>;
}

export function createLive(options: {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  webhookOptions?: WebhookWorkerOptions;
  /** Run a webhook worker (default true: endpoints may be added at runtime, on any instance). */
  webhookWorker?: boolean;
  boardOptions?: BoardOptions;
}): Live {
  const { config, database, logger } = options;
  const heapLimit = getHeapStatistics().heap_size_limit;
  const hub = new LiveHub(
    database,
    {
      // Unset, the heap is the limit: each stream takes its transport's share (src/live/capacity.ts).
      maxStreams: config.live.maxStreams ?? streamCapacity(heapLimit, 'ws'),
      heapBudget: config.live.maxStreams === undefined ? streamHeapBudget(heapLimit) : Infinity,
      maxStreamsPerUser: config.live.maxStreamsPerUser,
      maxStreamsPerIp: config.live.maxStreamsPerIp,
      maxQueue: config.live.streamQueue,
    },
    logger,
  );
  const boards = new LiveBoards(database.db, logger, options.boardOptions);
  hub.onEvents((userId) => boards.wrote(userId));
  hub.onAccountDeleted((userId) => boards.wrote(userId));
  const webhooks =
    options.webhookWorker === false
      ? undefined
      : new WebhookWorker(
          database.db,
          {
            retryForSeconds: config.webhookRetryForSeconds,
            allowedNetworks: config.webhookAllowedNetworks,
          },
          logger,
          options.webhookOptions,
        );
  if (webhooks) hub.onEvents(() => webhooks.wake());

  let pruneTimer: NodeJS.Timeout | undefined;
  // The count rule looks at users with events since the previous run; the
  // first run looks at every retained event.
  let touchedSince = new Date(Date.now() - config.live.retentionDays * 86_400_000);
  const prune = async () => {
    const startedAt = new Date(Date.now() - 60_000);
    const deleted = await pruneEvents(database.db, {
      maxAgeSeconds: config.live.retentionDays * 86_400,
      keepPerUser: config.live.retentionPerUser,
      touchedSince,
    });
    if (deleted !== null) touchedSince = startedAt;
    return deleted;
  };

  return {
    hub,
    boards,
    webhooks,
    prune,
    async start() {
      const { maxStreams } = hub.streamLimits;
      const capacity = { sse: streamCapacity(heapLimit), ws: streamCapacity(heapLimit, 'ws') };
      if (maxStreams > capacity.sse) {
        logger.warn(
          { maxStreams, capacity, heapLimitMb: heapLimit >> 20 },
          maxStreams > capacity.ws
            ? 'LIVE_MAX_STREAMS exceeds what the heap holds: raise --max-old-space-size or lower it'
            : 'LIVE_MAX_STREAMS exceeds what the heap holds of SSE streams: fine for WebSocket clients only',
        );
      }
      if (config.webhook) {
        const { before, after } = await syncConfigEndpoint(database.db, {
          url: config.webhook.url,
          secret: config.webhook.secret,
          overlapSeconds: CONFIG_SECRET_OVERLAP_SECONDS,
        });
        if (before?.updatedAt.getTime() !== after.updatedAt.getTime()) {
          logger.info(
            { endpointId: after.id, url: after.url, created: before === undefined },
            'webhooks: the endpoint of WEBHOOK_URL follows the configuration',
          );
        }
      }
      await hub.start();
      webhooks?.start();
      pruneTimer = setInterval(() => {
        prune().then(
          (deleted) => deleted && logger.info({ deleted }, 'live: outbox retention applied'),
          (err: unknown) => logger.warn({ err }, 'live: outbox retention failed'),
        );
      }, PRUNE_EVERY_MS);
      pruneTimer.unref();
    },
    async stop() {
      clearInterval(pruneTimer);
      boards.stop();
      await hub.close();
      await webhooks?.stop();
    },
  };
}
