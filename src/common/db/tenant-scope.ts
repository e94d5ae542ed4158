import { raw, sql, SqlFragment } from './sql';

/**
 * Which rows a caller may touch. `tenantId` null means unfiltered: single-tenant mode, or an
 * operator endpoint called without a tenant filter. Contract rule 4: a tenant filter never
 * matches NULL-tenant (legacy) rows; no filter matches every row.
 */
export class TenantScope {
  private constructor(
    readonly tenantId: string | null,
    /** Only NULL-tenant rows (see ofRow), not every row. */
    private readonly nullTenantOnly = false,
  ) {}

  static readonly ALL = new TenantScope(null);
  private static readonly NULL_TENANT = new TenantScope(null, true);

  /**
   * The scope of one row's own tenant, for operator work that found the row through an
   * unfiltered read and now acts on that (tenant, subject) alone: a NULL tenant (single-tenant
   * or legacy rows) matches only NULL-tenant rows, never another tenant's rows of the same
   * subject id. Cross-tenant as far as row-level security goes (NULL-tenant rows need it).
   */
  static ofRow(tenantId: string | null): TenantScope {
    return tenantId === null ? TenantScope.NULL_TENANT : new TenantScope(tenantId);
  }

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
    if (this.nullTenantOnly) return raw(alias ? `${alias}.tenant_id IS NULL` : 'tenant_id IS NULL');
    if (this.tenantId === null) return raw('TRUE');
    return alias ? sql`${raw(alias)}.tenant_id = ${this.tenantId}` : sql`tenant_id = ${this.tenantId}`;
  }
}
