import { Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { operatorScope } from 'src/common/db/tenant-scope';
import { DataSource } from 'typeorm';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { collectProcessMetrics, MetricsSources, metricsSources, setMetricsSources } from 'src/common/metrics/metrics';
import { MetricsController } from './metrics.controller';
import { CompileJobsService } from 'src/modules/memories/compile-jobs.service';
import { CompileJobsModule } from 'src/modules/memories/compile-jobs.module';

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/** GET /metrics and the scrape-time readers of the database (HTTP request metrics: app.setup.ts). */
@Module({
  imports: [WebhooksModule, CompileJobsModule],
  controllers: [MetricsController],
})
export class MetricsModule implements OnModuleInit, OnApplicationShutdown {
  private sources: MetricsSources | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly compileJobs: CompileJobsService,
    private readonly webhooks: WebhooksService,
  ) {}

  onModuleInit(): void {
    collectProcessMetrics();
    const ds = this.ds;
    this.sources = {
      // TypeORM's postgres driver keeps the pg Pool as `master`.
      pool: () => (ds.isInitialized ? ((ds.driver as unknown as { master?: PgPool }).master ?? null) : null),
      queueCounts: async () => {
        if (!ds.isInitialized) throw new Error('database closed');
        return {
          compile_jobs: await this.compileJobs.countsByStatus(operatorScope()),
          webhook_events: await this.webhooks.countsByStatus(operatorScope()),
        };
      },
    };
    setMetricsSources(this.sources);
  }

  onApplicationShutdown(): void {
    if (metricsSources() === this.sources) setMetricsSources(null);
  }
}
