import { register } from 'node:module';
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';

/**
 * OpenTelemetry tracing (docs/OPERATIONS.md, "Traces"). Off unless an
 * OTLP endpoint is configured (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT) and OTEL_SDK_DISABLED is not `true`. When off,
 * nothing but `@opentelemetry/api` (a few no-op objects) is loaded and the
 * helpers below return at once.
 *
 * It must start before the modules it instruments are loaded: the
 * production start preloads src/telemetry/preload.ts with `node --import`,
 * which registers import-in-the-middle's loader hook (so `pg` and `express`
 * imported from ESM are patched) and then starts the SDK.
 */

export const SERVICE_NAME = 'user-profile-service';

/** Requests not worth a trace: probes and scrapes (every few seconds, no user). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

let provider: { shutdown(): Promise<void>; forceFlush(): Promise<void> } | undefined;

/** Whether an exporter endpoint is configured (and the SDK not disabled by OTEL_SDK_DISABLED). */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim(),
  );
}

/** Whether this process exports traces (startTracing ran with an endpoint configured). */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

/**
 * Starts the SDK when `tracingConfigured(env)`: the http (server spans; W3C
 * `traceparent` read from requests), express, pg and undici (fetch: webhook
 * deliveries, key fetches; `traceparent` sent) instrumentations, spans
 * batched to the OTLP/HTTP exporter. The exporter reads the standard
 * OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout);
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL picks `http/protobuf` (the default)
 * or `http/json`. Returns whether it started.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (provider || !tracingConfigured(env)) return false;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json`,
    );
  }
  // Before any instrumented module is imported: ESM imports of pg and express
  // reach the instrumentations through this hook (require() ones through
  // require-in-the-middle, which the instrumentations set up themselves).
  // Only the two modules instrumented this way are wrapped; every other import is left alone.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['pg', 'express'] },
  });

  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { resourceFromAttributes, envDetector, detectResources },
    { registerInstrumentations },
    { HttpInstrumentation },
    { ExpressInstrumentation },
    { PgInstrumentation },
    { UndiciInstrumentation },
    exporterModule,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-undici'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const resource = resourceFromAttributes({ 'service.name': SERVICE_NAME }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new exporterModule.OTLPTraceExporter())],
  });
  // The W3C trace context (traceparent) and baggage propagators; AsyncLocalStorage context.
  tracerProvider.register();
  registerInstrumentations({
    tracerProvider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) =>
          UNTRACED_PATHS.has((request.url ?? '').split('?', 1)[0] ?? ''),
        // Outgoing calls go through fetch (undici below); http.request is not used.
        ignoreOutgoingRequestHook: () => true,
      }),
      new ExpressInstrumentation(),
      // Only statements of a traced operation: the webhook poll, LISTEN and the
      // retention job would otherwise each start a trace of their own every second.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  provider = tracerProvider;
  return true;
}

/** Exports the spans still buffered and stops the SDK (the server's shutdown calls it). */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  await stopping?.shutdown();
}

const tracer = () => trace.getTracer(SERVICE_NAME);

/**
 * Runs `fn` in a span `name` that is the active span of everything it awaits
 * (so SQL and fetches under it are its children); the span ends when `fn`
 * settles, with an error status when it throws. `fn` runs alone when tracing
 * is off. `root: true` starts a trace of its own.
 */
export function inSpan<T>(
  name: string,
  options: {
    attributes?: Attributes;
    kind?: SpanKind;
    root?: boolean;
    /** Set false when `fn` marks its own failures (an expected refusal is not an error). */
    errorStatus?: boolean;
  },
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!provider) return fn(undefined);
  return tracer().startActiveSpan(
    name,
    { attributes: options.attributes, kind: options.kind ?? SpanKind.INTERNAL, root: options.root },
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        if (options.errorStatus !== false) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The active span's trace and span ids, for log lines (pino's mixin); empty when tracing is off. */
export function traceFields(): { traceId?: string; spanId?: string } {
  if (!provider) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
