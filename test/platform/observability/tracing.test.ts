import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MODULE_LOG_PRELOAD } from '../../helpers/module-log.js';
import {
  runScript,
  startServerProcess,
  waitForExit,
  type ServerProcess,
} from '../../helpers/server-process.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * Traces end to end: the real server process (with the production preload)
 * exports over OTLP/HTTP (JSON) to a receiver started here; the request's
 * `traceparent` is continued by the HTTP server span, the tRPC procedure span
 * and the SQL spans under it; a webhook delivery carries a `traceparent` of
 * its own trace. SQL spans come from the `pg` driver: on PGlite (no driver)
 * that one assertion is skipped; run with TEST_DATABASE_URL for it.
 */

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

/** An OTLP/HTTP receiver (POST /v1/traces, JSON encoding) keeping every span it gets. */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  readonly resources: Record<string, unknown>[] = [];
  requests = 0;
  readonly #server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      this.requests += 1;
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      this.#collect(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  #collect(payload: {
    resourceSpans: {
      resource: { attributes: { key: string; value: OtlpAnyValue }[] };
      scopeSpans: {
        spans: (Omit<ExportedSpan, 'attributes'> & {
          attributes: { key: string; value: OtlpAnyValue }[];
        })[];
      }[];
    }[];
  }): void {
    for (const resourceSpans of payload.resourceSpans) {
      this.resources.push(attributesOf(resourceSpans.resource.attributes));
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) {
          this.spans.push({ ...span, attributes: attributesOf(span.attributes) });
        }
      }
    }
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  trace(traceId: string): ExportedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }
}

function attributesOf(list: { key: string; value: OtlpAnyValue }[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue,
    ]),
  );
}

/** A webhook receiver answering 200 and keeping each request's headers and body. */
async function startWebhookReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe('traces', () => {
  /** On PostgreSQL, a database of the test's own; on PGlite the server opens its own in dataDir. */
  let database: TestDatabase | undefined;
  let issuer: TokenIssuer;
  let dataDir: string;
  let otlp: OtlpReceiver;
  let webhooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let server: ServerProcess;

  beforeAll(async () => {
    if (testDbKind === 'postgres') database = await createTestDatabase();
    issuer = await startTokenIssuer({ audience: 'user-profile-service' });
    dataDir = await mkdtemp(path.join(tmpdir(), 'ups-tracing-'));
    otlp = new OtlpReceiver();
    const endpoint = await otlp.listen();
    webhooks = await startWebhookReceiver();
    server = await startServerProcess(
      {
        DATABASE_URL: database?.databaseUrl,
        DATA_DIR: dataDir,
        AUTH_ISSUER: issuer.issuer,
        AUTH_JWKS_URL: issuer.jwksUrl,
        AUTH_AUDIENCE: 'user-profile-service',
        WEBHOOK_URL: webhooks.url,
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'ups-under-test',
      },
      [MODULE_LOG_PRELOAD],
    );
  }, 120_000);

  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    await webhooks?.close();
    await otlp?.close();
    await issuer?.stop();
    await database?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('loads the SDK and its instrumentations (the module log sees them)', () => {
    const loaded = server.stderr();
    for (const module of ['sdk-trace-node', 'exporter-trace-otlp-http', 'instrumentation-pg']) {
      expect(loaded).toContain(`/node_modules/@opentelemetry/${module}/`);
    }
  });

  it('continues the caller’s traceparent through the HTTP span, the procedure and its SQL', async () => {
    const token = await issuer.sign(`tracing-${hex(4)}`);
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const response = await fetch(`${server.url}/api/user`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({ name: 'Traced Fan', favoriteTeam: 'Trace United' }),
    });
    expect(response.status).toBe(200);

    await expect
      .poll(() => otlp.trace(traceId).some((span) => span.name === 'updateUser'), {
        timeout: 15_000,
      })
      .toBe(true);
    const spans = otlp.trace(traceId);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const ancestors = (span: ExportedSpan) => {
      const chain: ExportedSpan[] = [];
      for (let at = span.parentSpanId && byId.get(span.parentSpanId); at;) {
        chain.push(at);
        at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
      }
      return chain;
    };

    // The server span is the caller's span's child (SpanKind SERVER = 2).
    const serverSpan = spans.find((span) => span.kind === 2);
    expect(serverSpan, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(serverSpan!.parentSpanId).toBe(callerSpanId);
    expect(serverSpan!.attributes['http.response.status_code'] ?? 200).toBe(200);

    const procedure = spans.find((span) => span.name === 'updateUser')!;
    expect(procedure.attributes['rpc.system']).toBe('trpc');
    expect(ancestors(procedure)).toContain(serverSpan);

    if (testDbKind === 'postgres') {
      await expect
        .poll(() => otlp.trace(traceId).filter((span) => span.attributes['db.system.name']), {
          timeout: 15_000,
        })
        .not.toEqual([]);
      const sql = otlp.trace(traceId).filter((span) => span.attributes['db.system.name']);
      for (const statement of sql) {
        expect(statement.attributes['db.system.name']).toBe('postgresql');
        expect(ancestors(statement)).toContain(procedure);
      }
      // The profile's write is among them (its text, never its values).
      const texts = sql.map((span) => String(span.attributes['db.query.text'] ?? ''));
      expect(texts.some((text) => /update/i.test(text))).toBe(true);
      expect(texts.join('\n')).not.toContain('Traced Fan');
    }
    expect(new Set(otlp.resources.map((resource) => resource['service.name']))).toEqual(
      new Set(['ups-under-test']),
    );

    // The request's log line names the trace. Lines are written asynchronously,
    // at most 250 ms after they are logged (src/logger.ts), so wait for it.
    const requestLine = () =>
      server.stdout
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry.msg === 'request' && entry.traceId === traceId);
    await expect
      .poll(requestLine, { timeout: 5_000, message: "the request's log line" })
      .toBeDefined();
    expect(requestLine()).toMatchObject({ method: 'PATCH', status: 200, traceId });
  });

  it('starts a trace of its own without a traceparent, and refuses none for a malformed one', async () => {
    const token = await issuer.sign(`tracing-${hex(4)}`);
    const response = await fetch(`${server.url}/api/user`, {
      headers: { authorization: `Bearer ${token}`, traceparent: 'not-a-traceparent' },
    });
    expect(response.status).toBe(200);
    const line = () =>
      server.stdout
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((entry) => entry.msg === 'request' && entry.method === 'GET')
        .at(-1);
    await expect.poll(() => line()?.traceId).toMatch(/^[0-9a-f]{32}$/);
    const traceId = line()!.traceId as string;
    await expect
      .poll(() => otlp.trace(traceId).map((span) => span.name), { timeout: 15_000 })
      .toContain('me');
    expect(otlp.trace(traceId).find((span) => span.kind === 2)!.parentSpanId ?? '').toBe('');
  });

  it('sends a traceparent with each webhook delivery, of a trace holding the delivery', async () => {
    const token = await issuer.sign(`tracing-${hex(4)}`);
    const response = await fetch(`${server.url}/api/user/profile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ favoriteTeam: 'Trace United' }),
    });
    expect(response.status).toBe(201);
    await expect.poll(() => webhooks.received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const delivery = webhooks.received[0]!;
    const match = TRACEPARENT.exec(String(delivery.headers.traceparent));
    expect(match, String(delivery.headers.traceparent)).not.toBeNull();
    const [, deliveryTrace, parentSpanId] = match!;
    const event = JSON.parse(delivery.body) as { id: string; type: string };

    await expect
      .poll(() => otlp.trace(deliveryTrace!).map((span) => span.name), { timeout: 15_000 })
      .toContain(`webhook ${event.type}`);
    const spans = otlp.trace(deliveryTrace!);
    const root = spans.find((span) => span.name === `webhook ${event.type}`)!;
    expect(root.parentSpanId ?? '').toBe('');
    expect(root.attributes['webhook.id']).toBe(event.id);
    // The header names the POST's own span (the fetch's client span, under the delivery's).
    const post = spans.find((span) => span.spanId === parentSpanId);
    expect(post).toMatchObject({ kind: 3, parentSpanId: root.spanId });
  });
});

describe('tracing not configured', () => {
  /**
   * A migrated database for a server process: on PostgreSQL one of the
   * test's own, else a copy of the run's PGlite template (so it starts at once).
   */
  const migratedDatabase = async (prefix: string) => {
    const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
    const own = testDbKind === 'postgres' ? await createTestDatabase() : undefined;
    if (!own) await cp(inject('pgliteTemplateDir'), dataDir, { recursive: true });
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: own?.databaseUrl },
      async remove() {
        await own?.destroy();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  };

  it('loads no SDK, exports nothing and logs no trace ids', async () => {
    const issuer = await startTokenIssuer({ audience: 'user-profile-service' });
    const database = await migratedDatabase('ups-untraced-');
    const server = await startServerProcess(
      {
        ...database.env,
        AUTH_ISSUER: issuer.issuer,
        AUTH_JWKS_URL: issuer.jwksUrl,
        AUTH_AUDIENCE: 'user-profile-service',
        // Set but empty: not configured.
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
      },
      [MODULE_LOG_PRELOAD],
    );
    try {
      const token = await issuer.sign(`untraced-${hex(4)}`);
      const response = await fetch(`${server.url}/api/user`, {
        headers: { authorization: `Bearer ${token}`, traceparent: `00-${hex(16)}-${hex(8)}-01` },
      });
      expect(response.status).toBe(200);
      await expect
        .poll(() => server.stdout.some((line) => line.includes('"msg":"request"')))
        .toBe(true);
      // Only the API's no-op objects: no SDK, exporter or instrumentation.
      const loaded = server
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('module-log: '));
      expect(loaded.length).toBeGreaterThan(0);
      expect(loaded.every((line) => line.includes('/node_modules/@opentelemetry/api/'))).toBe(true);
      expect(server.stdout.filter((line) => line.includes('traceId'))).toEqual([]);
      expect(server.stdout.join('\n')).not.toContain('tracing did not start');
    } finally {
      expect(await server.stop()).toBe(0);
      await issuer.stop();
      await database.remove();
    }
  }, 120_000);

  it('warns when an endpoint is set but the preload was left out', async () => {
    const database = await migratedDatabase('ups-unpreloaded-');
    const child = runScript('src/server.ts', [], {
      PORT: '0',
      HOST: '127.0.0.1',
      ...database.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    });
    try {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await expect.poll(() => out, { timeout: 60_000 }).toContain('"msg":"listening"');
      expect(out).toContain('tracing did not start');
    } finally {
      child.kill('SIGTERM');
      await waitForExit(child);
      await database.remove();
    }
  }, 120_000);
});
