import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import type { Database } from 'src/db/data-source';
import { DATABASE, VECTOR_MODE } from 'src/db/database.module';
import { readStatus } from 'src/db/migration-runner';
import { ReadRouter } from 'src/db/read-replicas';
import { schemaReport, SchemaReport } from 'src/db/schema-guard';
import type { VectorMode } from 'src/db/vector-support';
import { MigrationsReportDto, ReadinessDto } from './dto/readiness.dto';
import { OpsRepository } from './ops.repository';

/** Contract: a job claimed for more than 30 minutes counts as orphaned. */
export const ORPHAN_MINUTES = 30;
const PING_TIMEOUT_MS = 2000;

@Injectable()
export class OpsService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly typeorm: TypeOrmHealthIndicator,
    private readonly repo: OpsRepository,
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(VECTOR_MODE) private readonly vector: VectorMode,
  ) {}

  /** Readiness through terminus' database ping; stuck jobs degrade but do not fail it. */
  async readiness(): Promise<{ ok: boolean; body: ReadinessDto }> {
    const base = { engine: this.db.engine, vector: this.vector };
    try {
      await this.health.check([() => this.typeorm.pingCheck('database', { connection: this.ds, timeout: PING_TIMEOUT_MS })]);
      const stuck = await this.repo.countStuckJobs(ORPHAN_MINUTES);
      const replicas = this.reads.enabled ? this.reads.status() : undefined;
      const degraded = stuck > 0 || (replicas ?? []).some((r) => r.state !== 'ok');
      return {
        ok: true,
        body: { status: degraded ? 'degraded' : 'ready', ...base, checks: { database: 'ok', stuck_compile_jobs: stuck, ...(replicas && { replicas }) } },
      };
    } catch (err) {
      const message = (err as Error).message || 'database unreachable';
      return { ok: false, body: { status: 'unavailable', ...base, checks: { database: message, stuck_compile_jobs: 0 } } };
    }
  }

  async migrations(): Promise<MigrationsReportDto> {
    let report: SchemaReport;
    try {
      report = schemaReport(await readStatus(this.ds));
    } catch (err) {
      report = schemaReport(null, (err as Error).message);
    }
    return report;
  }
}
