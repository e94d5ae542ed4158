import { Inject, Injectable, Logger } from '@nestjs/common';
import { operatorScope } from 'src/common/db/tenant-scope';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { KEY_RESOLVER } from 'src/common/auth/principal';
import type { KeyResolver } from 'src/common/auth/principal';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import type { Database } from 'src/db/data-source';
import { DATABASE, VECTOR_MODE } from 'src/db/database.module';
import { readStatus } from 'src/db/migration-runner';
import { ReadRouter } from 'src/db/read-replicas';
import { schemaReport, SchemaReport } from 'src/db/schema-guard';
import type { VectorMode } from 'src/db/vector-support';
import { MigrationsReportDto, ReadinessDto } from './dto/readiness.dto';
import { CompileJobsService } from 'src/modules/memories/compile-jobs.service';

/** Contract: a job claimed for more than 30 minutes counts as orphaned (once its lease lapsed too). */
export const ORPHAN_MINUTES = 30;
/**
 * A running job's worker renews its lease (compile_jobs.updated_at) every JOB_LEASE_RENEW_MS;
 * a job whose lease is older than JOB_LEASE_MINUTES has lost its worker.
 */
export const JOB_LEASE_MINUTES = 2;
export const JOB_LEASE_RENEW_MS = 30_000;
const PING_TIMEOUT_MS = 2000;
/**
 * /readyz is public and unthrottled: one answer serves every caller for this long, so a probe
 * flood costs at most one ping and one count per second (on the embedded engine each would
 * otherwise queue for the single connection).
 */
export const READINESS_CACHE_MS = 1000;

type Readiness = { ok: boolean; body: ReadinessDto };

@Injectable()
export class OpsService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly typeorm: TypeOrmHealthIndicator,
    private readonly compileJobs: CompileJobsService,
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(VECTOR_MODE) private readonly vector: VectorMode,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(KEY_RESOLVER) private readonly keys: KeyResolver,
  ) {}

  private readonly logger = new Logger('readiness');
  private cached: { at: number; answer: Promise<Readiness> } | null = null;

  /** The last answer while it is younger than READINESS_CACHE_MS; concurrent callers share one check. */
  readiness(): Promise<Readiness> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < READINESS_CACHE_MS) return this.cached.answer;
    const answer = this.check();
    this.cached = { at: now, answer };
    return answer;
  }

  /**
   * Readiness through terminus' database ping; stuck jobs degrade but do not fail it. The probe is
   * anonymous: a failure says `unavailable`, its cause (a driver message may name hosts) goes to
   * the log. `auth` is `open` while no API key exists (docs/quickstart.md).
   */
  private async check(): Promise<Readiness> {
    const auth = this.config.apiKey || (await this.keys.keysInUse().catch(() => true)) ? 'key' : 'open';
    const base = { engine: this.db.engine, vector: this.vector, auth };
    try {
      await this.health.check([() => this.typeorm.pingCheck('database', { connection: this.ds, timeout: PING_TIMEOUT_MS })]);
      const stuck = await this.compileJobs.countStuck(operatorScope(), ORPHAN_MINUTES, JOB_LEASE_MINUTES);
      const replicas = this.reads.enabled ? this.reads.status() : undefined;
      const degraded = stuck > 0 || (replicas ?? []).some((r) => r.state !== 'ok');
      return {
        ok: true,
        body: { status: degraded ? 'degraded' : 'ready', ...base, checks: { database: 'ok', stuck_compile_jobs: stuck, ...(replicas && { replicas }) } },
      };
    } catch (err) {
      this.logger.warn({ err: { type: (err as Error).constructor?.name, message: (err as Error).message } }, 'readiness check failed');
      return { ok: false, body: { status: 'unavailable', ...base, checks: { database: 'unavailable', stuck_compile_jobs: 0 } } };
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
