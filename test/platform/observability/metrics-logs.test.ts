import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseReader } from '../../helpers/live.js';
import {
  findPrometheus,
  startPrometheus,
  type Prometheus,
  type Sample,
} from '../../helpers/prometheus.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * The service as deployed: its own process with METRICS_PORT set, a real
 * identity provider (JWKS over HTTP), a real webhook receiver, and a real
 * Prometheus (Debian's `prometheus`) scraping it every second. Known requests
 * first, then the series Prometheus stored must say exactly what they did;
 * the same process's stdout holds one request line per request.
 */
const prometheusBinary = findPrometheus();
if (!prometheusBinary && process.env.CI === 'true') {
  throw new Error(
    'CI=true and no `prometheus` binary: apt-get install -y prometheus (.ci/run does)',
  );
}

const FAN_TOKEN_MARK = 'fan-token';
let dataDir: string;
let database: TestDatabase | undefined;
let issuer: TokenIssuer;
let receiver: Server;
let received = 0;
let server: ServerProcess;
let prometheus: Prometheus;
let fanToken: string;
let stream: SseReader | undefined;
const answers: Record<string, number> = {};
let rejectedCode = '';

async function call(
  method: string,
  url: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** The one sample of `expression` (summed over the labels Prometheus adds). */
function one(samples: Sample[]): number | undefined {
  return samples.length === 1 ? samples[0]!.value : undefined;
}

describe.skipIf(!prometheusBinary)(
  'metrics scraped by Prometheus, and request logs',
  { timeout: 180_000 },
  () => {
    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'ups-metrics-'));
      if (testDbKind === 'postgres') database = await createTestDatabase();
      issuer = await startTokenIssuer();
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received += 1;
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const receiverPort = (receiver.address() as { port: number }).port;
      server = await startServerProcess({
        DATA_DIR: dataDir,
        DATABASE_URL: database?.databaseUrl,
        NODE_ENV: 'development',
        METRICS_PORT: '0',
        AUTH_ISSUER: issuer.issuer,
        AUTH_JWKS_URL: issuer.jwksUrl,
        RATE_LIMIT_PER_USER: '3',
        WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/hooks`,
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      });
      expect(server.metricsUrl).toBeDefined();

      // The known requests.
      fanToken = await issuer.sign(`${FAN_TOKEN_MARK}-${randomBytes(4).toString('hex')}`);
      answers.patch = (await call('PATCH', '/api/user', fanToken, { name: 'Prom' })).status;
      answers.anonymous = (await call('PATCH', '/api/user', undefined, { name: 'Nobody' })).status;
      const limited = await issuer.sign('limited-fan');
      for (let i = 1; i <= 4; i += 1)
        answers[`me${i}`] = (await call('GET', '/api/user', limited)).status;
      const service = await issuer.signService('metrics-service', 'events:write');
      const sent = await call('POST', '/api/events', service, {
        events: [
          { id: 'metrics-1', subject: 'events-fan', type: 'match_checkin' },
          { id: 'metrics-2', subject: 'events-fan', type: 'no_such_event_type' },
        ],
      });
      answers.events = sent.status;
      rejectedCode = sent.body?.data?.results?.[1]?.error?.code ?? '';
      stream = await openSse(`${server.url}/trpc/myEvents`, {
        authorization: `Bearer ${fanToken}`,
      });

      prometheus = await startPrometheus(prometheusBinary!, new URL(server.metricsUrl!).host);
      await prometheus.until('up{job="ups"}', (samples) => one(samples) === 1);
    });

    afterAll(async () => {
      stream?.close();
      await prometheus?.stop();
      await server?.stop();
      await issuer?.stop();
      await new Promise<void>((resolve) =>
        receiver ? receiver.close(() => resolve()) : resolve(),
      );
      await database?.destroy();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('answered the known requests as expected', () => {
      expect(answers).toEqual({
        patch: 200,
        anonymous: 401,
        me1: 200,
        me2: 200,
        me3: 200,
        me4: 429,
        events: 200,
      });
      expect(rejectedCode).not.toBe('');
    });

    it('counts requests by operation, face and status, never by raw path', async () => {
      const count = (labels: string) =>
        prometheus.query(`sum(http_request_duration_seconds_count{${labels}})`).then(one);
      expect(await count('operation="updateUser",face="rest",status="200"')).toBe(1);
      expect(await count('operation="updateUser",face="rest",status="401"')).toBe(1);
      expect(await count('operation="me",status="200"')).toBe(3);
      expect(await count('operation="me",status="429"')).toBe(1);
      expect(await count('operation="recordEvents",status="200"')).toBe(1);
      const paths = await prometheus.query(
        'count by (operation) (http_request_duration_seconds_count)',
      );
      for (const { metric } of paths) expect(metric.operation).not.toMatch(/\//);
      // The histogram's buckets are there for quantiles.
      const buckets = await prometheus.query(
        'http_request_duration_seconds_bucket{operation="updateUser",status="200",le="+Inf"}',
      );
      expect(one(buckets)).toBe(1);

      // A request after the first scrape shows up at a later one.
      expect((await call('PATCH', '/api/user', fanToken, { name: 'Prom again' })).status).toBe(200);
      await prometheus.until(
        'sum(http_request_duration_seconds_count{operation="updateUser",status="200"})',
        (samples) => one(samples) === 2,
      );
    });

    it('counts rate-limit refusals by limiter, key fetches, writes and events', async () => {
      const value = (expression: string) => prometheus.query(expression).then(one);
      expect(await value('sum(ups_rate_limit_refusals_total{limiter="user"})')).toBe(1);
      // One JWKS fetch: every later token was verified with the cached keys.
      expect(await value('sum(ups_identity_key_fetches_total{source="jwks",outcome="ok"})')).toBe(
        1,
      );
      expect(await value('sum(ups_identity_key_fetches_total{outcome="failed"})')).toBeUndefined();
      expect(
        await value('sum(ups_user_write_attempts_total{writer="profile",outcome="written"})'),
      ).toBeGreaterThanOrEqual(1);
      expect(
        await value('sum(ups_user_write_attempts_total{writer="events",outcome="written"})'),
      ).toBe(1);
      expect(await value('sum(ups_events_total{status="recorded"})')).toBe(1);
      expect(await value(`sum(ups_events_total{status="rejected",code="${rejectedCode}"})`)).toBe(
        1,
      );
    });

    it('reports open streams, webhook deliveries, the outbox lag and the pool', async () => {
      const value = (expression: string) => prometheus.query(expression).then(one);
      expect(await value('ups_live_streams_open{procedure="myEvents"}')).toBe(1);
      // Every event the receiver got is a delivery, and nothing is left waiting.
      await prometheus.until(
        'sum(ups_webhook_deliveries_total{outcome="delivered"})',
        (samples) => received > 0 && one(samples) === received,
      );
      await prometheus.until(
        'ups_outbox_oldest_undelivered_seconds',
        (samples) => one(samples) === 0,
      );
      if (testDbKind === 'postgres') {
        expect(await value('ups_db_pool_connections{pool="primary"}')).toBeGreaterThanOrEqual(1);
        expect(await value('ups_db_pool_acquire_seconds_count{pool="primary"}')).toBeGreaterThan(0);
      } else {
        // The embedded database has no pool: the series are there, at 0.
        expect(await value('ups_db_pool_connections{pool="primary"}')).toBe(0);
        expect(await value('ups_db_pool_waiting{pool="primary"}')).toBe(0);
      }
      expect(await value('process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(await value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);

      stream!.close();
      await prometheus.until('ups_live_streams_open{procedure="myEvents"}', (s) => one(s) === 0);
    });

    it('logs one line per request with operation, status, error code, user and duration; never the token', async () => {
      const lines = server.stdout
        .map((line) => {
          try {
            return JSON.parse(line) as Record<string, any>;
          } catch {
            return undefined;
          }
        })
        .filter((entry): entry is Record<string, any> => entry?.msg === 'request');
      const patches = lines.filter((line) => line.operation === 'updateUser');
      expect(patches.map((line) => line.status)).toEqual(expect.arrayContaining([200, 401]));
      const ok = patches.find((line) => line.status === 200)!;
      expect(ok).toMatchObject({ method: 'PATCH', path: '/api/user', level: 'info' });
      expect(ok.userId).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof ok.reqId).toBe('string');
      expect(ok.durationMs).toBeGreaterThan(0);
      expect(ok.errorCode).toBeUndefined();
      const refused = patches.find((line) => line.status === 401)!;
      expect(refused).toMatchObject({ errorCode: 'UNAUTHENTICATED' });
      expect(refused.userId).toBeUndefined();
      const limited = lines.find((line) => line.operation === 'me' && line.status === 429)!;
      expect(limited).toMatchObject({ errorCode: 'RATE_LIMITED' });
      expect(limited.userId).toBeUndefined(); // refused before the user was looked up
      expect(lines.find((line) => line.operation === 'recordEvents')).toMatchObject({
        clientId: 'metrics-service',
        status: 200,
      });
      // The stream's line is written when it closed.
      await expect
        .poll(() => server.stdout.some((line) => line.includes('"operation":"myEvents"')))
        .toBe(true);

      const everything = server.stdout.join('\n');
      expect(everything).not.toContain(fanToken);
      expect(everything).not.toContain(fanToken.split('.')[2]!); // not even the signature
      expect(everything).not.toContain(FAN_TOKEN_MARK); // nor the token's subject
      expect(everything.toLowerCase()).not.toContain('authorization');
      expect(everything).not.toContain('Bearer');
    });
  },
);
