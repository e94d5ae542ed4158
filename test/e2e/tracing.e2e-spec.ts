import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from 'src/app.module';
import { configureApp } from 'src/app.setup';
import { ExpressServerAdapter } from 'src/common/http/express-server';
import { LOG_STREAM } from 'src/common/logging/log-stream.module';
import { TRACING_SPAN_PROCESSOR } from 'src/common/tracing/tracing.module';
import { otlpTracesUrl, tracingEnabled } from 'src/common/tracing/tracing';
import { APP_CONFIG, loadConfig } from 'src/config/app-config';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { WebhookDeliveryWorker } from 'src/modules/webhooks/webhook-delivery.worker';
import { ALL_TABLES, createTestApp, testEnv } from '../app-factory';

const SECRET_WORDS = 'papaya-lighthouse-7731';

describe('OpenTelemetry tracing', () => {
  const exporter = new InMemorySpanExporter();
  let app: NestExpressApplication;
  let receiver: Server;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const config = loadConfig(
      testEnv({ SERVICE_REQUIRE_TENANT: 'true', SERVICE_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }),
    );
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(APP_CONFIG)
      .useValue(config)
      .overrideProvider(LOG_STREAM)
      .useValue(null)
      .overrideProvider(TRACING_SPAN_PROCESSOR)
      .useValue(new SimpleSpanProcessor(exporter))
      .compile();
    app = moduleRef.createNestApplication<NestExpressApplication>(new ExpressServerAdapter(), { bodyParser: false });
    configureApp(app, config);
    await app.init();
    // Every table, as createTestApp does: an API key left by an earlier file would turn this
    // file's keyless requests into 401s (seen when jest ran the files in another order).
    await app.get(DataSource).query(`TRUNCATE ${ALL_TABLES}`);
    exporter.reset();
  });
  afterAll(async () => {
    await app.close();
    await new Promise((r) => receiver.close(r));
  });

  const spans = () => exporter.getFinishedSpans();
  const childrenOf = (parent: ReadableSpan) => spans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

  it('traces an HTTP request by route template with request id, tenant and status, and its queries as children', async () => {
    await request(app.getHttpServer())
      .post('/v1/episodes')
      .set('X-Tenant-ID', 'tenant-t')
      .set('X-Request-ID', 'trace-req-1')
      .send({ subject_id: 'trace-s', source: 'chat', type: 'conversation', payload: { messages: [{ role: 'user', content: `My name is Ivo. ${SECRET_WORDS}` }] } })
      .expect(201);
    const server = spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['request.id'] === 'trace-req-1');
    expect(server).toBeDefined();
    expect(server!.name).toBe('POST /v1/episodes');
    expect(server!.attributes).toMatchObject({ 'http.route': '/v1/episodes', 'http.response.status_code': 201, 'tenant.id': 'tenant-t', 'http.request.method': 'POST' });

    const queries = childrenOf(server!).filter((s) => s.name === 'db.query');
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) {
      expect(q.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'request.id': 'trace-req-1', 'tenant.id': 'tenant-t' });
      expect(String(q.attributes['db.query.text'])).toMatch(/\$1/);
    }
    expect(queries.map((q) => q.attributes['db.operation.name'])).toContain('INSERT');
  });

  it("continues the caller's trace from an incoming traceparent header", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    await request(app.getHttpServer()).get('/v1/subjects').set('X-Tenant-ID', 'tenant-t').set('X-Request-ID', 'trace-parent-1').set('traceparent', `00-${traceId}-${parentId}-01`).expect(200);
    const server = spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['request.id'] === 'trace-parent-1');
    expect(server!.spanContext().traceId).toBe(traceId);
    expect(server!.parentSpanContext?.spanId).toBe(parentId);
    // Without the header a request starts its own trace.
    await request(app.getHttpServer()).get('/v1/subjects').set('X-Tenant-ID', 'tenant-t').set('X-Request-ID', 'trace-parent-2').expect(200);
    const own = spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['request.id'] === 'trace-parent-2');
    expect(own!.spanContext().traceId).not.toBe(traceId);
    expect(own!.parentSpanContext).toBeUndefined();
  });

  it('never puts parameter values or payloads into spans', () => {
    expect(JSON.stringify(spans().map((s) => [s.name, s.attributes, s.events]))).not.toContain(SECRET_WORDS);
  });

  it('traces a compile job with its id and tenant; its queries are children', async () => {
    exporter.reset();
    const job = await request(app.getHttpServer()).post('/v1/memories/compile').set('X-Tenant-ID', 'tenant-t').send({ subject_id: 'trace-s', async: true }).expect(202);
    await app.get(CompileJobsWorker).runOnce();
    const span = spans().find((s) => s.name === 'compile.job');
    expect(span).toBeDefined();
    expect(span!.attributes).toMatchObject({ 'compile.job_id': job.body.job_id, 'compile.mode': 'async', 'tenant.id': 'tenant-t', 'request.id': `job:${job.body.job_id}` });
    expect(childrenOf(span!).filter((s) => s.name === 'db.query').length).toBeGreaterThan(0);
  });

  it('traces webhook deliveries as client spans with the event id and the answer', async () => {
    exporter.reset();
    expect(await app.get(WebhookDeliveryWorker).runOnce()).toBeGreaterThan(0);
    const deliveries = spans().filter((s) => s.name === 'webhook.deliver');
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries[0].kind).toBe(SpanKind.CLIENT);
    expect(deliveries[0].attributes).toMatchObject({ 'webhook.event': expect.any(String), 'webhook.event_id': expect.any(String), 'http.response.status_code': 200, 'tenant.id': 'tenant-t' });
  });

  it('names a request no route matched without its raw URL', async () => {
    exporter.reset();
    await request(app.getHttpServer()).get('/v1/nothing/here/123').set('X-Tenant-ID', 'tenant-t').expect(404);
    const server = spans().find((s) => s.kind === SpanKind.SERVER);
    expect(server!.name).toBe('GET unmatched');
    expect(server!.attributes['http.response.status_code']).toBe(404);
  });
});

describe('tracing settings', () => {
  it('is off without an OTLP endpoint (no provider, no spans)', async () => {
    const t = await createTestApp();
    try {
      expect(tracingEnabled()).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('reads the standard OTEL_EXPORTER_OTLP_ENDPOINT and appends the traces path', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).otelEndpoint).toBe('http://collector:4318');
    expect(loadConfig({ SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:4318' }).otelEndpoint).toBe('http://a:4318');
    expect(otlpTracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl('http://collector:4318/v1/traces')).toBe('http://collector:4318/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%20d,x=1' }).otelHeaders).toEqual({ 'api-key': 'abc d', x: '1' });
    expect(() => loadConfig({ SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
