import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from 'src/common/db/sql';
import { TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';

/**
 * Compile job counts for the scrape: every tenant's rows (operators see the whole process).
 * Webhook outbox counts come from WebhooksService, which keeps them cheap.
 */
@Injectable()
export class MetricsRepository extends TenantScopedRepository {
  protected readonly table = 'compile_jobs';

  async countsByStatus(em: EntityManager, _table: 'compile_jobs'): Promise<Record<string, number>> {
    const rows = await this.scoped<{ status: string; n: number }>(em, TenantScope.ALL, (t) => sql`SELECT status, count(*)::int AS n FROM compile_jobs WHERE ${t()} GROUP BY status`);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}
