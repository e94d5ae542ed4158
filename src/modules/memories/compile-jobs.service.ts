import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { OperatorScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import type { CompileJobStatus, JobRow } from './compile-job.entity';
import { CompileJobsRepository } from './compile-jobs.repository';

/** The compile-job queue as operator surfaces read it (readiness, /metrics, the admin job listing and tenant audit). */
@Injectable()
export class CompileJobsService {
  constructor(
    private readonly ds: DataSource,
    private readonly jobs: CompileJobsRepository,
  ) {}

  /** Jobs per status. */
  countsByStatus(scope: OperatorScope): Promise<Record<string, number>> {
    return this.jobs.countsByStatus(this.ds.manager, scope);
  }

  /** Jobs running longer than `minutes` whose lease lapsed (the contract's orphan threshold). */
  countStuck(scope: OperatorScope, minutes: number, leaseMinutes: number): Promise<number> {
    return this.jobs.countStuck(this.ds.manager, scope, minutes, leaseMinutes);
  }

  /** GET /admin/jobs: newest first, filtered by status and subject. */
  list(scope: OperatorScope, filter: { status?: CompileJobStatus; subjectId?: string; limit: number; offset: number }): Promise<JobRow[]> {
    return this.jobs.list(this.ds.manager, scope, filter);
  }

  /**
   * POST /admin/jobs/{id}/requeue: a failed job back to `pending` with a fresh attempt count (the
   * CLI's `jobs requeue-failed` for one id), so the next worker poll claims it; its last error is
   * kept until it runs again. Unknown (or outside the scope's tenant): 404; not failed: 409, since
   * requeueing a pending, running or completed job would run a compile twice.
   */
  async requeue(scope: OperatorScope, id: string): Promise<JobRow> {
    return this.ds.transaction(async (em) => {
      const [row] = await this.jobs.requeueFailed(em, scope, [id]);
      if (row) return row;
      const job = await this.jobs.findStatus(em, scope, id);
      if (!job) throw AppError.notFound(`Compile job ${id} not found.`);
      throw new AppError(ErrorCode.Conflict, `Compile job ${id} is ${job.status}; only a failed job can be requeued.`, { status: job.status });
    });
  }

  /** Jobs lacking a tenant_id (the tenant audit, in the caller's transaction). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.jobs.countNullTenant(em, scope);
  }
}
