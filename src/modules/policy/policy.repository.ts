import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { sql } from 'src/common/db/sql';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';

export interface PolicyBundleRow {
  tenant_id: string | null;
  yaml: string;
  hash: string;
  updated_at: Date;
}

/**
 * One policy bundle per tenant. Unlike the data tables, the NULL-tenant row is not "every
 * tenant": it is the bundle of single-tenant mode, so reads match the tenant exactly
 * (`tenant_id IS NOT DISTINCT FROM`) instead of through the unfiltered-scope rule.
 */
@Injectable()
export class PolicyRepository extends TenantScopedRepository {
  protected readonly table = 'policy_bundles';

  async find(em: DbHandle, scope: AnyScope): Promise<PolicyBundleRow | null> {
    const rows = await this.scoped<PolicyBundleRow>(em, scope, (t) => sql`
      SELECT tenant_id, yaml, hash, updated_at FROM policy_bundles
      WHERE ${t()} AND tenant_id IS NOT DISTINCT FROM ${scope.tenantId}::varchar`);
    return rows[0] ?? null;
  }

  async upsert(em: DbHandle, scope: OperatorScope, yaml: string, hash: string): Promise<PolicyBundleRow> {
    const rows = await this.stamped<PolicyBundleRow>(em, scope, (tenantId) => sql`
      INSERT INTO policy_bundles (tenant_id, yaml, hash) VALUES (${tenantId}, ${yaml}, ${hash})
      ON CONFLICT ((coalesce(tenant_id, ''))) DO UPDATE SET yaml = EXCLUDED.yaml, hash = EXCLUDED.hash, updated_at = now()
      RETURNING tenant_id, yaml, hash, updated_at`);
    return rows[0];
  }

  async delete(em: DbHandle, scope: OperatorScope): Promise<boolean> {
    const rows = await this.scoped(em, scope, (t) => sql`
      WITH gone AS (DELETE FROM policy_bundles WHERE ${t()} AND tenant_id IS NOT DISTINCT FROM ${scope.tenantId}::varchar RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    return (rows[0] as { n: number }).n > 0;
  }
}
