import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from 'src/common/db/sql';
import { TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';

/** Queue sizes for the scrape: every tenant's rows (operators see the whole process). */
@Injectable()
export class MetricsRepository extends TenantScopedRepository {
  protected readonly table = 'compile_jobs, webhook_events';

  async countsByStatus(em: EntityManager, table: 'compile_jobs' | 'webhook_events'): Promise<Record<string, number>> {
    const rows =
      table === 'compile_jobs'
        ? await this.scoped<{ status: string; n: number }>(em, TenantScope.ALL, (t) => sql`SELECT status, count(*)::int AS n FROM compile_jobs WHERE ${t()} GROUP BY status`)
        : await this.scoped<{ status: string; n: number }>(em, TenantScope.ALL, (t) => sql`SELECT status, count(*)::int AS n FROM webhook_events WHERE ${t()} GROUP BY status`);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}
