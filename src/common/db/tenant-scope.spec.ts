import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EntityManager } from 'typeorm';
import { TENANT_TABLES } from 'src/db/entities';
import { rowOf } from './row-shape';
import { compile, sql } from './sql';
import { OperatorScope, operatorScope, TenantScope } from './tenant-scope';
import { TenantScopedRepository } from './tenant-scoped.repository';

/** The fake connection below answers each statement with one row: its text and values. */
const ECHO_ROW = rowOf<{ text: string; values: unknown[] }>({ text: true, values: true });

class ProbeRepository extends TenantScopedRepository {
  protected readonly table = 'episodes';
  run(scope: TenantScope, useTenant: boolean) {
    const queryRunner = { query: async (text: string, values: unknown[]) => ({ records: [{ text, values }] }) };
    // No row-level security on this fake connection (its role check reads no row).
    const em = { queryRunner, connection: {} } as unknown as EntityManager;
    return this.scoped(em, scope, ECHO_ROW, (t) => (useTenant ? sql`SELECT 1 FROM episodes WHERE ${t('e')}` : sql`SELECT 1 FROM episodes`));
  }
  /** Never called: the type checker is the test (a statement must name the shape of its rows). */
  shapeless(em: EntityManager, scope: TenantScope) {
    // @ts-expect-error A read without a row shape does not compile.
    void this.scoped(em, scope, (t) => sql`SELECT 1 FROM episodes WHERE ${t()}`);
    // @ts-expect-error …nor does an insert without one.
    void this.stamped(em, scope, (tenantId) => sql`INSERT INTO episodes (tenant_id) VALUES (${tenantId})`);
  }
}

describe('TenantScope and OperatorScope', () => {
  it('filters by tenant when scoped and matches every row (NULL tenants too) when not', () => {
    expect(compile(TenantScope.of('acme').predicate('e'))).toEqual({ text: 'e.tenant_id = $1', values: ['acme'] });
    expect(compile(TenantScope.ofRequest(null).predicate('e')).text).toBe('TRUE');
    expect(compile(operatorScope().predicate('e')).text).toBe('TRUE');
    expect(compile(operatorScope('acme').predicate('e'))).toEqual({ text: 'e.tenant_id = $1', values: ['acme'] });
  });

  it('keeps single-tenant mode (a request without a tenant) apart from an operator\'s every tenant', () => {
    // A request without a tenant, and a job written by such a request, are a TenantScope that means "no tenant".
    expect(TenantScope.ofRequest(null)).toBeInstanceOf(TenantScope);
    expect(TenantScope.ofStored(null)).toBe(TenantScope.ofRequest(null));
    expect(TenantScope.ofRequest('acme').tenantId).toBe('acme');
    // "Every tenant" exists only as an OperatorScope.
    expect(operatorScope()).toBeInstanceOf(OperatorScope);
    expect(operatorScope().tenantId).toBeNull();
    expect(operatorScope('acme').everyTenant()).toBe(operatorScope());
    const needsTenantScope = (scope: TenantScope) => scope;
    // @ts-expect-error An OperatorScope is not a TenantScope: client code cannot pass "every tenant".
    needsTenantScope(operatorScope());
    const needsOperatorScope = (scope: OperatorScope) => scope;
    // @ts-expect-error …nor is a request's scope an operator's.
    needsOperatorScope(TenantScope.ofRequest(null));
    // @ts-expect-error TenantScope.of takes a tenant: a missing one is not "every tenant".
    TenantScope.of(undefined);
  });

  it('is minted only by operatorScope()', () => {
    const forged = () => new OperatorScope(Symbol('operator scope') as never, null, false);
    expect(forged).toThrow(/minted by operatorScope/);
  });

  it('keeps the NULL-tenant rule inside the scope', () => {
    // One row per (tenant, key): the unfiltered scope owns the NULL-tenant rows only.
    expect(compile(TenantScope.ofRequest(null).keyOwner('m')).text).toBe('m.tenant_id IS NULL');
    expect(compile(TenantScope.of('acme').keyOwner('m')).text).toBe('TRUE');
    // A stored row's own NULL tenant, apart from every named tenant (operator work on that one row).
    expect(compile(operatorScope().ofRow(null).predicate('x')).text).toBe('x.tenant_id IS NULL');
    expect(compile(operatorScope().ofRow('acme').predicate('x'))).toEqual({ text: 'x.tenant_id = $1', values: ['acme'] });
  });

  it('refuses a query that never asked for its tenant predicate', async () => {
    const repo = new ProbeRepository();
    await expect(repo.run(TenantScope.of('acme'), false)).rejects.toThrow(/without its tenant predicate/);
    await expect(repo.run(TenantScope.of('acme'), true)).resolves.toEqual([{ text: 'SELECT 1 FROM episodes WHERE e.tenant_id = $1', values: ['acme'] }]);
  });
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}

describe('tenant-owned tables are reached only through scoped repositories', () => {
  const sources = files(join(__dirname, '..', '..', 'modules')).map((p) => ({ p, text: readFileSync(p, 'utf8') }));
  // SQL keywords are written upper-case in this codebase; prose in comments is not.
  const tablePattern = new RegExp(`\\b(FROM|INTO|UPDATE|JOIN)\\s+(${TENANT_TABLES.join('|')})\\b`);

  it('no service, controller or worker writes SQL against a tenant table', () => {
    // `*.sql.ts` modules hold SQL fragments (the as-of views) that only repositories compose
    // into statements, which scoped() then checks for their tenant predicate.
    const offenders = sources.filter(({ p, text }) => !p.endsWith('.repository.ts') && !p.endsWith('.sql.ts') && tablePattern.test(text)).map(({ p }) => p);
    expect(offenders).toEqual([]);
  });

  it('every repository that touches a tenant table extends TenantScopedRepository and uses no TypeORM repository', () => {
    const offenders = sources
      .filter(({ p, text }) => p.endsWith('.repository.ts') && tablePattern.test(text))
      .filter(({ text }) => !/extends TenantScopedRepository/.test(text) || /getRepository\(|InjectRepository\(/.test(text))
      .map(({ p }) => p);
    expect(offenders).toEqual([]);
  });
});
