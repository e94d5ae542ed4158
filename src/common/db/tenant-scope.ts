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

  /** One tenant's rows. */
  static of(tenantId: string): TenantScope {
    return new TenantScope(tenantId);
  }

  /**
   * A request's scope: its bound tenant, or, without one (single-tenant mode: no tenant header
   * and none required), every row.
   */
  static ofRequest(tenantId: string | null): TenantScope {
    return tenantId === null ? TenantScope.ALL : new TenantScope(tenantId);
  }

  /**
   * An operator handler's or command's scope: the tenant it filters by, or every tenant when it
   * gives none. Only operator surfaces (/admin, the CLI) call this; a missing tenant is never
   * "every tenant" anywhere else (issue 18).
   */
  static operator(tenantFilter: string | undefined): TenantScope {
    return tenantFilter === undefined ? TenantScope.ALL : new TenantScope(tenantFilter);
  }

  /**
   * The scope a stored row's tenant stands for when work resumes from it (a queued job, a
   * health mark, a snapshot): its tenant, or for a NULL tenant (written by a single-tenant
   * request) the unfiltered scope that request had. Compare ofRow, which keeps NULL-tenant rows
   * apart.
   */
  static ofStored(tenantId: string | null): TenantScope {
    return TenantScope.ofRequest(tenantId);
  }

  get filtered(): boolean {
    return this.tenantId !== null;
  }

  /** The value stamped into tenant_id on insert. */
  get insertValue(): string | null {
    return this.tenantId;
  }

  /**
   * For rows that are one per (tenant, key) — idempotency keys, cached health, refresh marks —
   * the rows this scope owns besides its predicate: a tenant owns its own; the unfiltered scope
   * (single-tenant mode) owns the NULL-tenant rows only, not every tenant's key (contract rule 4).
   */
  keyOwner(alias?: string): SqlFragment {
    if (this.tenantId !== null) return raw('TRUE');
    return raw(alias ? `${alias}.tenant_id IS NULL` : 'tenant_id IS NULL');
  }

  predicate(alias?: string): SqlFragment {
    if (this.nullTenantOnly) return raw(alias ? `${alias}.tenant_id IS NULL` : 'tenant_id IS NULL');
    if (this.tenantId === null) return raw('TRUE');
    return alias ? sql`${raw(alias)}.tenant_id = ${this.tenantId}` : sql`tenant_id = ${this.tenantId}`;
  }
}
