import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { OperatorScope } from 'src/common/db/tenant-scope';
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

  /** Jobs lacking a tenant_id (the tenant audit, in the caller's transaction). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.jobs.countNullTenant(em, scope);
  }
}
