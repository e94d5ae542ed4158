import { raw, sql, SqlFragment } from './sql';

/**
 * Which rows a caller may touch. `tenantId` null means unfiltered: single-tenant mode, or an
 * operator endpoint called without a tenant filter. Contract rule 4: a tenant filter never
 * matches NULL-tenant (legacy) rows; no filter matches every row.
 */
export class TenantScope {
  private constructor(readonly tenantId: string | null) {}

  static readonly ALL = new TenantScope(null);

  static of(tenantId: string | null | undefined): TenantScope {
    return tenantId == null ? TenantScope.ALL : new TenantScope(tenantId);
  }

  get filtered(): boolean {
    return this.tenantId !== null;
  }

  /** The value stamped into tenant_id on insert. */
  get insertValue(): string | null {
    return this.tenantId;
  }

  predicate(alias?: string): SqlFragment {
    if (this.tenantId === null) return raw('TRUE');
    return alias ? sql`${raw(alias)}.tenant_id = ${this.tenantId}` : sql`tenant_id = ${this.tenantId}`;
  }
}
