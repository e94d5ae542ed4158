import { Attributes, context, propagation, Span, SpanKind, SpanStatusCode, trace, Tracer } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { RequestContext } from 'src/common/context/request-context';
import { SERVICE_VERSION } from 'src/common/version';
import type { AppConfig } from 'src/config/app-config';

const TRACER_NAME = 'memory-service';

/**
 * Tracing is process-wide state: the OpenTelemetry API keeps one global tracer provider and
 * context manager. While no provider is started, `withSpan` is a plain call (no span objects,
 * no context switches), so the default (tracing off) costs nothing on the hot paths.
 */
let active: { provider: NodeTracerProvider; tracer: Tracer } | null = null;

export function tracingEnabled(): boolean {
  return active !== null;
}

/** The OTLP/HTTP traces URL for a collector base URL (the OTEL_EXPORTER_OTLP_ENDPOINT convention). */
export function otlpTracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/**
 * Starts tracing when an OTLP endpoint is configured, or with the given span processor (tests
 * pass SimpleSpanProcessor(InMemorySpanExporter)). No auto-instrumentation: spans come from
 * the HTTP middleware, `run()` of the tenant-scoped repositories, the compile jobs and the
 * webhook deliveries. Returns false when tracing stays off.
 */
export async function startTracing(config: Pick<AppConfig, 'otelEndpoint' | 'otelHeaders' | 'otelServiceName' | 'otelSampleRatio'>, processor?: SpanProcessor): Promise<boolean> {
  if (active) return true;
  if (!processor && config.otelEndpoint === '') return false;
  // Loaded only when tracing is on: every process (and each CLI command) would otherwise pay for the SDK.
  const { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace-base');
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = await import('@opentelemetry/semantic-conventions');
  if (active) return true;
  const spanProcessor =
    processor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(config.otelEndpoint), headers: { ...config.otelHeaders } }));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.otelServiceName, [ATTR_SERVICE_VERSION]: SERVICE_VERSION }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.otelSampleRatio) }),
    spanProcessors: [spanProcessor],
  });
  // Installs the AsyncLocalStorage context manager, so child spans find their parent across awaits.
  provider.register();
  active = { provider, tracer: provider.getTracer(TRACER_NAME, SERVICE_VERSION) };
  return true;
}

/** Flushes pending spans and turns tracing off (shutdown, and between tests). */
export async function stopTracing(): Promise<void> {
  if (!active) return;
  const { provider } = active;
  active = null;
  await provider.forceFlush().catch(() => undefined);
  await provider.shutdown().catch(() => undefined);
  trace.disable();
  context.disable();
}

/** Request id and tenant of the current request or job, as span attributes. */
function contextAttributes(): Attributes {
  const state = RequestContext.current();
  if (!state) return {};
  const attrs: Attributes = { 'request.id': state.requestId };
  if (state.tenantId !== null) attrs['tenant.id'] = state.tenantId;
  return attrs;
}

/**
 * Runs `fn` inside a span named `name` (a child of the active span), with the request id and
 * tenant added to `attrs`. The span ends when `fn` settles; a throw marks it as an error and
 * is rethrown. Attribute values must never carry payloads or query parameters.
 */
export async function withSpan<T>(name: string, attrs: Attributes, fn: (span: Span | null) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (!active) return fn(null);
  return active.tracer.startActiveSpan(name, { kind, attributes: { ...contextAttributes(), ...attrs } }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException({ name: (err as Error)?.name ?? 'Error', message: (err as Error)?.message ?? String(err) });
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * A span for work whose end is signalled by an event rather than a promise (an HTTP response's
 * `finish`): `fn` runs with the span active and the caller ends it. Null when tracing is off.
 */
export function startSpan(name: string, attrs: Attributes, kind: SpanKind, carrier?: Record<string, unknown>): { span: Span; run<T>(fn: () => T): T } | null {
  if (!active) return null;
  // An incoming W3C `traceparent` (and `tracestate`) makes this span a child of the caller's,
  // so a trace crosses from the agent into the service; the sampler follows the parent's flag.
  const parent = carrier ? propagation.extract(context.active(), carrier) : context.active();
  const span = active.tracer.startSpan(name, { kind, attributes: { ...contextAttributes(), ...attrs } }, parent);
  const ctx = trace.setSpan(parent, span);
  return { span, run: (fn) => context.with(ctx, fn) };
}
