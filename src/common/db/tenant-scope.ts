import { raw, sql, SqlFragment } from './sql';

/**
 * Which rows a caller may touch, and what an insert stamps. Contract rule 4: a tenant filter
 * never matches NULL-tenant (legacy) rows; no filter matches every row. The rule lives here
 * only: repositories ask a scope for its predicate, its insert value and its key owner.
 *
 * Two types (issue 18): a TenantScope is what a client request gets — one tenant, or in
 * single-tenant mode "no tenant"; an OperatorScope is what only operator handlers (/admin, /ops,
 * /metrics), CLI commands and background workers obtain, and is the only way to say "every
 * tenant". A repository method's signature says which it accepts.
 */
abstract class Scope {
  protected constructor(
    /** null: unfiltered (single-tenant mode, or an operator's every tenant), unless nullTenantOnly. */
    readonly tenantId: string | null,
    /** Only NULL-tenant rows (OperatorScope.ofRow), not every row. */
    private readonly nullTenantOnly: boolean,
  ) {}

  /** Whether the predicate names one tenant (row-level security then binds the transaction to it). */
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

/** A client request's scope (and the scope of work resumed on its behalf): one tenant, or no tenant. */
export class TenantScope extends Scope {
  /** Brand: a TenantScope is never an OperatorScope (classes with private members compare by name). */
  private declare readonly brand: 'tenant';

  private constructor(tenantId: string | null) {
    super(tenantId, false);
  }

  /**
   * Single-tenant mode (no tenant header and none required): the deployment has no tenants, so
   * the request's rows are every row (contract rule 4: no filter matches every row). Not the
   * operator's "every tenant", which a request can never hold.
   */
  private static readonly NO_TENANT = new TenantScope(null);

  /** One tenant's rows. */
  static of(tenantId: string): TenantScope {
    return new TenantScope(tenantId);
  }

  /** A request's scope: its bound tenant, or without one the single-tenant mode's no-tenant scope. */
  static ofRequest(tenantId: string | null): TenantScope {
    return tenantId === null ? TenantScope.NO_TENANT : new TenantScope(tenantId);
  }

  /**
   * The scope a stored row's tenant stands for when work resumes from it (a queued job, a
   * health mark, a snapshot): its tenant, or for a NULL tenant (written by a single-tenant
   * request) the scope that request had.
   */
  static ofStored(tenantId: string | null): TenantScope {
    return TenantScope.ofRequest(tenantId);
  }
}

const MINT = Symbol('operator scope');

/**
 * An operator's scope: every tenant, one tenant an operator filters by, or one stored row's own
 * tenant. Minted only by operatorScope(), which only operator handlers, CLI commands and workers
 * call (src/common/db/operator-scope.spec.ts keeps the list).
 */
export class OperatorScope extends Scope {
  private declare readonly brand: 'operator';

  /** `mint`: the module's own token; anything else is refused (no other way to make one). */
  constructor(mint: typeof MINT, tenantId: string | null, nullTenantOnly: boolean) {
    if (mint !== MINT) throw new Error('an OperatorScope is minted by operatorScope() only');
    super(tenantId, nullTenantOnly);
  }

  /** Every tenant: an operator's work that must see all rows whatever its filter (a name's next version). */
  everyTenant(): OperatorScope {
    return ALL_TENANTS;
  }

  /**
   * The scope of one row's own tenant, for operator work that found the row through an
   * every-tenant read and now acts on that (tenant, subject) alone: a NULL tenant (single-tenant
   * or legacy rows) matches only NULL-tenant rows, never another tenant's rows of the same
   * subject id. Cross-tenant as far as row-level security goes (NULL-tenant rows need it).
   */
  ofRow(tenantId: string | null): OperatorScope {
    return tenantId === null ? NULL_TENANT : new OperatorScope(MINT, tenantId, false);
  }
}

const ALL_TENANTS = new OperatorScope(MINT, null, false);
const NULL_TENANT = new OperatorScope(MINT, null, true);

/** Either scope, for repository methods that serve both client requests and operator work. */
export type AnyScope = TenantScope | OperatorScope;

/**
 * An operator handler's, command's or worker's scope: the tenant it filters by, or every tenant
 * when it gives none.
 */
export function operatorScope(tenantFilter?: string): OperatorScope {
  return tenantFilter === undefined ? ALL_TENANTS : new OperatorScope(MINT, tenantFilter, false);
}

/**
 * Rows that each keep their own tenant (an operator's import), grouped by it in first-seen
 * order: each group is written through its own `TenantScope.ofStored`, so the data-access layer
 * still stamps every tenant_id.
 */
export function byStoredTenant<T extends { tenant_id: string | null }>(rows: readonly T[]): Map<string | null, T[]> {
  const groups = new Map<string | null, T[]>();
  for (const row of rows) {
    const group = groups.get(row.tenant_id);
    if (group) group.push(row);
    else groups.set(row.tenant_id, [row]);
  }
  return groups;
}
