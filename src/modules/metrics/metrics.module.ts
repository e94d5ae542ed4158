import { MiddlewareConsumer, Module, NestModule, OnApplicationShutdown, OnModuleInit, RequestMethod } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { collectProcessMetrics, MetricsSources, metricsSources, setMetricsSources } from 'src/common/metrics/metrics';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { MetricsController } from './metrics.controller';
import { MetricsRepository } from './metrics.repository';

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/** GET /metrics, the HTTP request metrics, and the scrape-time readers of the database. */
@Module({
  controllers: [MetricsController],
  providers: [MetricsRepository],
})
export class MetricsModule implements NestModule, OnModuleInit, OnApplicationShutdown {
  private sources: MetricsSources | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly repo: MetricsRepository,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }

  onModuleInit(): void {
    collectProcessMetrics();
    const ds = this.ds;
    this.sources = {
      // TypeORM's postgres driver keeps the pg Pool as `master`.
      pool: () => (ds.isInitialized ? ((ds.driver as unknown as { master?: PgPool }).master ?? null) : null),
      queueCounts: async () => {
        if (!ds.isInitialized) throw new Error('database closed');
        return {
          compile_jobs: await this.repo.countsByStatus(ds.manager, 'compile_jobs'),
          webhook_events: await this.repo.countsByStatus(ds.manager, 'webhook_events'),
        };
      },
    };
    setMetricsSources(this.sources);
  }

  onApplicationShutdown(): void {
    if (metricsSources() === this.sources) setMetricsSources(null);
  }
}
