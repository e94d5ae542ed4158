/**
 * Test tooling (imported by specs only; libpg-query is a dev dependency): checks that every
 * reference to a tenant-owned table in one SQL statement is constrained by a tenant scope's
 * predicate. The statement is parsed by PostgreSQL's own parser (libpg-query), so each table
 * reference of a join, a subquery, a set operation and a CTE is seen, not just the first one.
 *
 * A reference is constrained when a top-level conjunct of its own level's WHERE (or of the ON of
 * the join it sits in, on the side that join filters) is `<alias>.tenant_id = $n` with `$n` the
 * scope's tenant. An INSERT into a tenant-owned table must write tenant_id from the scope's
 * tenant, or copy it from a constrained tenant-owned row of its own SELECT.
 *
 * CTEs: a CTE shadows a table of its name for the rest of the statement (the as-of views of
 * memories-as-of.sql.ts and episodes-as-of.sql.ts are CTEs named `memories` and `episodes`). A
 * SELECT CTE whose body reads tenant-owned rows without the predicate is itself tenant-owned: a
 * view of every tenant's rows, which every reference to it must then constrain, as the as-of
 * views are (NOT MATERIALIZED: the outer predicate reaches the table's index). A data-modifying
 * CTE must constrain its own rows.
 */
import { parse } from 'libpg-query';
import { TENANT_TABLES } from 'src/db/entities';

type Node = Record<string, unknown>;

export interface Unscoped {
  table: string;
  alias: string;
  /** Character offset in the statement. */
  location: number;
}

interface CteInfo {
  tenantOwned: boolean;
}

type Env = ReadonlyMap<string, CteInfo>;

interface Relation {
  table: string;
  alias: string;
  location: number;
  constrained: boolean;
}

const TENANT = new Set<string>(TENANT_TABLES);

/** Table references of `text` not constrained to the tenant `tenantId` (bound as a parameter in `values`). */
export async function unscopedReferences(text: string, values: readonly unknown[], tenantId: string): Promise<Unscoped[]> {
  const parsed = (await parse(text)) as unknown as { stmts: { stmt: Node }[] };
  const out: Unscoped[] = [];
  const checker = new Checker(values, tenantId);
  for (const { stmt } of parsed.stmts) checker.walk(stmt, new Map(), out);
  return out;
}

class Checker {
  constructor(
    private readonly values: readonly unknown[],
    private readonly tenantId: string,
  ) {}

  /** Visits every node; statements are checked level by level with the CTEs in scope. */
  walk(node: unknown, env: Env, out: Unscoped[]): void {
    if (Array.isArray(node)) {
      for (const n of node) this.walk(n, env, out);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Node)) {
      if (key === 'SelectStmt' || key === 'InsertStmt' || key === 'UpdateStmt' || key === 'DeleteStmt') this.statement(key, value as Node, env, out);
      else this.walk(value, env, out);
    }
  }

  private statement(kind: string, stmt: Node, outer: Env, out: Unscoped[]): void {
    const env = this.withClause(stmt.withClause as Node | undefined, outer, out);
    const rest = { ...stmt };
    delete rest.withClause;
    if (kind === 'SelectStmt' && stmt.op !== undefined && stmt.op !== 'SETOP_NONE') {
      // A set operation: each branch is a statement of its own.
      this.statement('SelectStmt', stmt.larg as Node, env, out);
      this.statement('SelectStmt', stmt.rarg as Node, env, out);
      delete rest.larg;
      delete rest.rarg;
    } else if (kind === 'InsertStmt') {
      this.insert(stmt, env, out);
    } else {
      const from = [...((stmt.fromClause as Node[] | undefined) ?? []), ...((stmt.usingClause as Node[] | undefined) ?? [])];
      const relations: Relation[] = [];
      if (stmt.relation) relations.push(...this.relations({ RangeVar: stmt.relation }, env));
      for (const item of from) relations.push(...this.relations(item, env));
      this.constrainByWhere(relations, stmt.whereClause as Node | undefined);
      for (const r of relations) if (!r.constrained) out.push({ table: r.table, alias: r.alias, location: r.location });
    }
    this.walk(rest, env, out);
  }

  /** The CTEs of a WITH, each checked with the CTEs before it in scope (and itself, if recursive). */
  private withClause(clause: Node | undefined, outer: Env, out: Unscoped[]): Env {
    if (!clause) return outer;
    const env = new Map(outer);
    for (const c of clause.ctes as Node[]) {
      const cte = c.CommonTableExpr as Node;
      const name = cte.ctename as string;
      const bodyEnv = new Map(env);
      if (clause.recursive === true) bodyEnv.set(name, { tenantOwned: false });
      const found: Unscoped[] = [];
      this.walk(cte.ctequery, bodyEnv, found);
      const isSelect = 'SelectStmt' in (cte.ctequery as Node);
      if (isSelect) env.set(name, { tenantOwned: found.length > 0 });
      else {
        out.push(...found);
        env.set(name, { tenantOwned: false });
      }
    }
    return env;
  }

  private insert(stmt: Node, env: Env, out: Unscoped[]): void {
    const target = stmt.relation as Node;
    const table = target.relname as string;
    if (env.has(table) || !TENANT.has(table)) return;
    const location = (target.location as number) ?? 0;
    const cols = ((stmt.cols as Node[] | undefined) ?? []).map((c) => (c.ResTarget as Node).name as string);
    const index = cols.indexOf('tenant_id');
    const select = (stmt.selectStmt as Node | undefined)?.SelectStmt as Node | undefined;
    const stamped = (() => {
      if (index < 0 || !select) return false;
      if (select.valuesLists) {
        return (select.valuesLists as Node[]).every((list) => this.isTenantParam(((list.List as Node).items as Node[])[index]));
      }
      const value = (((select.targetList as Node[])[index]?.ResTarget as Node | undefined)?.val) as Node | undefined;
      if (value && this.isTenantParam(value)) return true;
      // Copied from a row of the SELECT's own tenant-owned tables (checked as the SELECT's level).
      const column = columnRef(value);
      if (!column || column.length !== 2 || column[1] !== 'tenant_id') return false;
      const relations = ((select.fromClause as Node[] | undefined) ?? []).flatMap((item) => this.relations(item, env));
      return relations.some((r) => r.alias === column[0]);
    })();
    if (!stamped) out.push({ table, alias: `INSERT INTO ${table}`, location });
  }

  /** The relations a FROM item brings into its level, join conditions already applied. */
  private relations(item: Node, env: Env): Relation[] {
    if (item.RangeVar) {
      const rv = item.RangeVar as Node;
      const name = rv.relname as string;
      const cte = rv.schemaname === undefined ? env.get(name) : undefined;
      const tenantOwned = cte ? cte.tenantOwned : TENANT.has(name);
      if (!tenantOwned) return [];
      const alias = ((rv.alias as Node | undefined)?.aliasname as string | undefined) ?? name;
      return [{ table: name, alias, location: (rv.location as number) ?? 0, constrained: false }];
    }
    if (item.JoinExpr) {
      const join = item.JoinExpr as Node;
      const left = this.relations(join.larg as Node, env);
      const right = this.relations(join.rarg as Node, env);
      const aliases = this.tenantAliases(join.quals as Node | undefined);
      // An outer join's ON filters only the side whose rows may be dropped.
      const filtered = join.jointype === 'JOIN_LEFT' ? right : join.jointype === 'JOIN_RIGHT' ? left : join.jointype === 'JOIN_INNER' ? [...left, ...right] : [];
      for (const r of filtered) if (aliases.has(r.alias)) r.constrained = true;
      return [...left, ...right];
    }
    // Subqueries (LATERAL too) and functions are statements or expressions the walk checks on their own.
    return [];
  }

  private constrainByWhere(relations: Relation[], where: Node | undefined): void {
    const aliases = this.tenantAliases(where);
    for (const r of relations) {
      // An unqualified tenant_id is unambiguous only with one tenant-owned relation at this level.
      if (aliases.has(r.alias) || (aliases.has('') && relations.length === 1)) r.constrained = true;
    }
  }

  /** Aliases that a top-level conjunct `alias.tenant_id = <the scope's tenant>` constrains ('' for unqualified). */
  private tenantAliases(expr: Node | undefined): Set<string> {
    const found = new Set<string>();
    for (const conjunct of conjuncts(expr)) {
      const op = conjunct.A_Expr as Node | undefined;
      if (!op || op.kind !== 'AEXPR_OP' || opName(op) !== '=') continue;
      for (const [col, other] of [
        [op.lexpr, op.rexpr],
        [op.rexpr, op.lexpr],
      ] as [Node, Node][]) {
        const fields = columnRef(col);
        if (fields && fields[fields.length - 1] === 'tenant_id' && this.isTenantParam(other)) found.add(fields.length === 2 ? fields[0] : '');
      }
    }
    return found;
  }

  private isTenantParam(node: Node | undefined): boolean {
    let n = node;
    while (n?.TypeCast) n = (n.TypeCast as Node).arg as Node;
    const param = n?.ParamRef as Node | undefined;
    return param !== undefined && this.values[(param.number as number) - 1] === this.tenantId;
  }
}

function conjuncts(expr: Node | undefined): Node[] {
  if (!expr) return [];
  const bool = expr.BoolExpr as Node | undefined;
  if (bool && bool.boolop === 'AND_EXPR') return (bool.args as Node[]).flatMap((a) => conjuncts(a));
  return [expr];
}

function opName(op: Node): string | undefined {
  const name = op.name as Node[];
  return ((name[name.length - 1]?.String as Node | undefined)?.sval as string | undefined) ?? undefined;
}

function columnRef(node: Node | undefined): string[] | null {
  const ref = node?.ColumnRef as Node | undefined;
  if (!ref) return null;
  const fields = (ref.fields as Node[]).map((f) => (f.String as Node | undefined)?.sval as string | undefined);
  return fields.every((f): f is string => f !== undefined) ? fields : null;
}
