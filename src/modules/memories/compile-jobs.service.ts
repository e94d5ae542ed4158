import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { OperatorScope } from 'src/common/db/tenant-scope';
import { CompileJobsRepository } from './compile-jobs.repository';

/** The compile-job queue as operator surfaces read it (readiness, /metrics): every tenant's jobs. */
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
}
