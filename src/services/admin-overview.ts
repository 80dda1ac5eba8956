import type { Kysely } from 'kysely';
import {
  activeFans,
  databaseNow,
  deliveryHealth,
  eventBuckets,
  type DeliveryHealth,
} from '../../db/queries/overview.js';
import { oldestUndeliveredAge } from '../../db/queries/webhook-queue.js';
import type { Database } from '../../db/schema.js';
import {
  alignBuckets,
  bucketStarts,
  OVERVIEW_WINDOWS,
  type OverviewWindow,
} from '../domain/overview.js';
import { rejectionsByCode } from '../metrics.js';

/** When this process started: what its rejection counts are counted since. */
const processStart = new Date(Date.now() - process.uptime() * 1000);

export interface Overview {
  window: OverviewWindow;
  from: Date;
  to: Date;
  bucketSeconds: number;
  buckets: Date[];
  events: Array<{ type: string; counts: number[] }>;
  points: number[];
  activeFans: number;
  rejections: { since: Date; byCode: Array<{ code: string; count: number }> };
  outboxLagSeconds: number;
  webhooks: DeliveryHealth;
}

/** The game at a glance over the last hour or day (the console's Overview page). */
export async function overview(
  deps: { db: Kysely<Database> },
  window: OverviewWindow,
): Promise<Overview> {
  const { seconds, bucketSeconds } = OVERVIEW_WINDOWS[window];
  const to = await databaseNow(deps.db);
  const from = new Date(to.getTime() - seconds * 1000);
  const [rows, fans, webhooks, lag, byCode] = await Promise.all([
    eventBuckets(deps.db, { seconds, bucketSeconds }),
    activeFans(deps.db, seconds),
    deliveryHealth(deps.db, seconds),
    oldestUndeliveredAge(deps.db),
    rejectionsByCode(),
  ]);
  const buckets = bucketStarts(from, to, bucketSeconds);
  return {
    window,
    from,
    to,
    bucketSeconds,
    buckets,
    ...alignBuckets(buckets, rows),
    activeFans: fans,
    rejections: { since: processStart, byCode },
    outboxLagSeconds: lag,
    webhooks,
  };
}
