import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/OPERATIONS.md lists every series):
 * one registry, served by `metricsServer` on METRICS_PORT. Counters and
 * histograms are process-wide, as Prometheus counts per process; the layers
 * record into them through `metrics` below. What only a running instance
 * knows (its pool, its outbox) is read at scrape time from the sources the
 * server entry registers with `trackPool` and `trackOutbox`.
 */
export const registry = new Registry();

const registers = [registry];

/** Durations up to 10 s, finer below 100 ms, where most requests finish. */
const SECONDS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by operation (the procedure / OpenAPI operationId), face (rest, trpc, other) and status',
  labelNames: ['operation', 'face', 'status'] as const,
  buckets: SECONDS,
  registers,
});

const userWriteAttempts = new Counter({
  name: 'ups_user_write_attempts_total',
  help: "A user's guarded write statements (db/queries/user-write/) by writer and outcome; stale and event_taken are tried again",
  labelNames: ['writer', 'outcome'] as const,
  registers,
});

const userWritesExhausted = new Counter({
  name: 'ups_user_writes_exhausted_total',
  help: 'Writes that lost the race on every attempt and answered 503 UNAVAILABLE, by writer',
  labelNames: ['writer'] as const,
  registers,
});

const poolAcquire = new Histogram({
  name: 'ups_db_pool_acquire_seconds',
  help: 'How long a query waited for a connection, by pool (primary, replica)',
  labelNames: ['pool'] as const,
  buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});

const webhookDeliveries = new Counter({
  name: 'ups_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (delivered, failed: retried later, gave_up)',
  labelNames: ['outcome'] as const,
  registers,
});

const openStreams = new Gauge({
  name: 'ups_live_streams_open',
  help: 'Live subscription streams open on this instance, by procedure',
  labelNames: ['procedure'] as const,
  registers,
});

const rateLimitRefusals = new Counter({
  name: 'ups_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit (user, service, ip) or a stream limit (stream_user, stream_ip)',
  labelNames: ['limiter'] as const,
  registers,
});

const keyFetches = new Counter({
  name: 'ups_identity_key_fetches_total',
  help: "Requests for the identity provider's keys (jwks) or discovery document (discovery), by outcome (ok, failed)",
  labelNames: ['source', 'outcome'] as const,
  registers,
});

const events = new Counter({
  name: 'ups_events_total',
  help: 'Events sent by services (POST /api/events) by status (recorded, duplicate, rejected) and rejection code',
  labelNames: ['status', 'code'] as const,
  registers,
});

export type UserWriter = 'profile' | 'events' | 'reversal' | 'admin';
export type Limiter = 'user' | 'service' | 'ip' | 'stream_user' | 'stream_ip' | 'new_subjects';

/** What the layers record; each call is one `inc` or `observe`. */
export const metrics = {
  request(operation: string, face: string, status: number, seconds: number): void {
    requestDuration.observe({ operation, face, status }, seconds);
  },
  userWriteAttempt(writer: UserWriter, outcome: string): void {
    userWriteAttempts.inc({ writer, outcome });
  },
  userWriteExhausted(writer: UserWriter): void {
    userWritesExhausted.inc({ writer });
  },
  poolAcquired(seconds: number, pool: string): void {
    poolAcquire.observe({ pool }, seconds);
  },
  webhookDelivery(outcome: 'delivered' | 'failed' | 'gave_up'): void {
    webhookDeliveries.inc({ outcome });
  },
  /** A stream opened; call the function returned when it closes. */
  streamOpened(procedure: string): () => void {
    openStreams.inc({ procedure });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      openStreams.dec({ procedure });
    };
  },
  rateLimited(limiter: Limiter): void {
    rateLimitRefusals.inc({ limiter });
  },
  keyFetch(source: 'jwks' | 'discovery', outcome: 'ok' | 'failed'): void {
    keyFetches.inc({ source, outcome });
  },
  event(status: 'recorded' | 'duplicate' | 'rejected', code = ''): void {
    events.inc({ status, code });
  },
};

/** Events this process rejected since it started, by code, most first (as ups_events_total counts). */
export async function rejectionsByCode(): Promise<Array<{ code: string; count: number }>> {
  const { values } = await events.get();
  return values
    .filter((value) => value.labels.status === 'rejected' && value.value > 0)
    .map((value) => ({ code: String(value.labels.code), count: value.value }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** Each tracked handle's pools by name (primary, replica); none on the embedded database. */
type Pools = () => Partial<Record<string, PoolStats>>;

const pools = new Set<Pools>();
const outboxes = new Set<() => Promise<number>>();

function gaugeOfPools(name: string, help: string, read: (stats: PoolStats) => number): void {
  new Gauge({
    name,
    help,
    labelNames: ['pool'] as const,
    registers,
    collect() {
      // The primary's series is always there (0 on the embedded database).
      const sums = new Map<string, number>([['primary', 0]]);
      for (const stats of pools) {
        for (const [pool, current] of Object.entries(stats())) {
          if (current) sums.set(pool, (sums.get(pool) ?? 0) + read(current));
        }
      }
      for (const [pool, sum] of sums) this.set({ pool }, sum);
    },
  });
}

gaugeOfPools(
  'ups_db_pool_connections',
  'Connections the PostgreSQL pool holds (idle or in use)',
  (s) => s.total,
);
gaugeOfPools('ups_db_pool_idle_connections', 'Idle connections in the pool', (s) => s.idle);
gaugeOfPools(
  'ups_db_pool_waiting',
  'Queries waiting for a connection because every one is in use',
  (s) => s.waiting,
);

new Gauge({
  name: 'ups_outbox_oldest_undelivered_seconds',
  help: 'Age of the oldest outbox event whose webhook is not yet delivered or given up (0: none)',
  registers,
  async collect() {
    try {
      let oldest = 0;
      for (const lag of outboxes) oldest = Math.max(oldest, await lag());
      this.set(oldest);
    } catch {
      // The database is unreachable: the last value stays, the scrape goes on
      // (ups_db_pool_* and the requests' 503s say what is wrong).
    }
  },
});

/** Reports a pool's use at every scrape until the returned function is called. */
export function trackPool(stats: Pools): () => void {
  pools.add(stats);
  return () => pools.delete(stats);
}

/** Reports the outbox's lag (seconds) at every scrape until the returned function is called. */
export function trackOutbox(lagSeconds: () => Promise<number>): () => void {
  outboxes.add(lagSeconds);
  return () => outboxes.delete(lagSeconds);
}

/** What `trackReplica` reads: db/read-router.ts's ReadRouter. */
export interface ReplicaSource {
  readonly replicaServing: boolean;
  lagSeconds(): number | null;
}

const replicas = new Set<ReplicaSource>();
// Registered by the first trackReplica: without DATABASE_READ_URL the series are absent, not 0.
const replicaLag = new Gauge({
  name: 'ups_replica_lag_seconds',
  help: 'How far behind the primary the read replica is, at most (db/read-router.ts; NaN before it first answered)',
  registers: [],
  collect() {
    for (const replica of replicas) this.set(replica.lagSeconds() ?? Number.NaN);
  },
});
const replicaServing = new Gauge({
  name: 'ups_replica_serving',
  help: '1 while reads go to the read replica, 0 while it is down or lagging beyond DATABASE_READ_MAX_LAG_MS',
  registers: [],
  collect() {
    for (const replica of replicas) this.set(replica.replicaServing ? 1 : 0);
  },
});

/** Reports the read replica's lag and whether it serves, at every scrape, until the returned function is called. */
export function trackReplica(replica: ReplicaSource): () => void {
  if (replicas.size === 0) {
    if (!registry.getSingleMetric('ups_replica_lag_seconds')) registry.registerMetric(replicaLag);
    if (!registry.getSingleMetric('ups_replica_serving')) registry.registerMetric(replicaServing);
  }
  replicas.add(replica);
  return () => {
    replicas.delete(replica);
    if (replicas.size === 0) {
      registry.removeSingleMetric('ups_replica_lag_seconds');
      registry.removeSingleMetric('ups_replica_serving');
    }
  };
}

let processMetrics = false;

/**
 * An HTTP server (not listening) answering `GET /metrics` in Prometheus's
 * text format, with Node's process metrics (prom-client's defaults) added
 * once. Anything else is a 404. It is meant for its own port (METRICS_PORT),
 * reachable by the scraper and not by the public: docs/decisions/0025-metrics-and-logs.md.
 */
export function metricsServer(): Server {
  if (!processMetrics) {
    processMetrics = true;
    collectDefaultMetrics({ register: registry });
  }
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
}
