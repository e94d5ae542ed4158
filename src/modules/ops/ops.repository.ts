import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { sql } from 'src/common/db/sql';

/** Operator reads across all tenants (readiness). */
@Injectable()
export class OpsRepository extends TenantScopedRepository {
  protected readonly table = 'compile_jobs';

  constructor(private readonly ds: DataSource) {
    super();
  }

  /** Jobs running longer than the contract's 30-minute orphan threshold. */
  async countStuckJobs(minutes: number, leaseMinutes: number): Promise<number> {
    const rows = await this.scoped<{ n: number }>(this.ds.manager, TenantScope.ALL, (t) =>
      sql`SELECT count(*)::int AS n FROM compile_jobs WHERE ${t()} AND status = 'running' AND started_at < now() - make_interval(mins => ${minutes})
        AND updated_at < now() - make_interval(secs => ${leaseMinutes * 60})`,
    );
    return rows[0].n;
  }
}
