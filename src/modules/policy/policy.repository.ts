import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { entityRow } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { PolicyBundleEntity } from './policy-bundle.entity';

/** A policy bundle as the repository reads it: the entity's columns but the surrogate id. */
const BUNDLE_ROW = entityRow(PolicyBundleEntity, ['tenant_id', 'yaml', 'hash', 'updated_at'] as const);
export type PolicyBundleRow = typeof BUNDLE_ROW.row;
const BUNDLE_COLUMNS = raw(BUNDLE_ROW.columns.join(', '));

/**
 * One policy bundle per tenant. Unlike the data tables, the NULL-tenant row is not "every
 * tenant": it is the bundle of single-tenant mode, so reads match the tenant exactly
 * (`tenant_id IS NOT DISTINCT FROM`) instead of through the unfiltered-scope rule.
 */
@Injectable()
export class PolicyRepository extends TenantScopedRepository {
  protected readonly table = 'policy_bundles';

  async find(em: DbHandle, scope: AnyScope): Promise<PolicyBundleRow | null> {
    const rows = await this.select(em, scope, BUNDLE_ROW, PolicyBundleEntity, 'p', (qb) =>
      qb.andWhere('p.tenant_id IS NOT DISTINCT FROM CAST(:tenantId AS varchar)', { tenantId: scope.tenantId }));
    return rows[0] ?? null;
  }

  async upsert(em: DbHandle, scope: OperatorScope, yaml: string, hash: string): Promise<PolicyBundleRow> {
    const rows = await this.stamped(em, scope, BUNDLE_ROW, (tenantId) => sql`
      INSERT INTO policy_bundles (tenant_id, yaml, hash) VALUES (${tenantId}, ${yaml}, ${hash})
      ON CONFLICT ((coalesce(tenant_id, ''))) DO UPDATE SET yaml = EXCLUDED.yaml, hash = EXCLUDED.hash, updated_at = now()
      RETURNING ${BUNDLE_COLUMNS}`);
    return rows[0];
  }

  async delete(em: DbHandle, scope: OperatorScope): Promise<boolean> {
    const deleted = await this.deleted(em, scope, PolicyBundleEntity, (qb) =>
      qb.andWhere('tenant_id IS NOT DISTINCT FROM CAST(:tenantId AS varchar)', { tenantId: scope.tenantId }));
    return deleted > 0;
  }
}
