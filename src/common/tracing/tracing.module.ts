import { Global, Inject, Module, MiddlewareConsumer, NestModule, OnApplicationShutdown, RequestMethod } from '@nestjs/common';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { HttpTracingMiddleware } from './http-tracing.middleware';
import { startTracing, stopTracing } from './tracing';

/** A span processor to use instead of the OTLP exporter (tests: SimpleSpanProcessor(InMemorySpanExporter)). */
export const TRACING_SPAN_PROCESSOR = Symbol('TRACING_SPAN_PROCESSOR');
/** True when this app started tracing. */
export const TRACING = Symbol('TRACING');

/**
 * OpenTelemetry tracing, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (or a processor is
 * provided). Started while the app is created, flushed and stopped at shutdown.
 */
@Global()
@Module({
  providers: [
    { provide: TRACING_SPAN_PROCESSOR, useValue: null },
    {
      provide: TRACING,
      inject: [APP_CONFIG, TRACING_SPAN_PROCESSOR],
      useFactory: (config: AppConfig, processor: SpanProcessor | null) => startTracing(config, processor ?? undefined),
    },
  ],
  exports: [TRACING],
})
export class TracingModule implements NestModule, OnApplicationShutdown {
  constructor(@Inject(TRACING) private readonly started: boolean) {}

  /**
   * Mounted only when tracing is on: off, the middleware would do nothing but call `next`, and
   * every request would still pay for Nest's middleware layer around it (a route layer matched
   * on every path, its proxy and dispatch: bench/README.md "Ingest cost per request").
   */
  configure(consumer: MiddlewareConsumer): void {
    if (this.started) consumer.apply(HttpTracingMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.started) await stopTracing();
  }
}
