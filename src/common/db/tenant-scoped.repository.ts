import { createHash } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import type { PoolClient } from 'pg';
import { DataSource, DeleteQueryBuilder, EntityManager, EntityTarget, ObjectLiteral, QueryRunner, SelectQueryBuilder } from 'typeorm';
import { tracingEnabled, withSpan } from 'src/common/tracing/tracing';
import { DbHandle, managerOf } from './db-handle';
import { CHECK_ROWS, checkRows, RowShape } from './row-shape';
import { compile, SqlFragment } from './sql';
import type { AnyScope } from './tenant-scope';

export type TenantPredicate = (alias?: string) => SqlFragment;

/**
 * Base of every repository over a table with tenant_id. Queries are built by a callback that
 * receives the scope's predicate; a query that never asks for it is refused at run time, so a
 * forgotten tenant filter fails loudly in the first test instead of leaking data. A repository
 * holds no manager of its own: it gets the caller's transaction as an opaque DbHandle and can run
 * statements only through scoped() and stamped() (src/modules/tenant-scoped-sql.spec.ts parses
 * every one of them).
 */
export abstract class TenantScopedRepository {
  protected abstract readonly table: string;

  /**
   * A statement of a tenant-owned table: `shape` declares the columns it answers and gives the
   * rows their type (checked under test, see row-shape.ts); there is no overload without one, so
   * a statement that forgets it does not compile.
   */
  protected async scoped<T>(em: DbHandle, scope: AnyScope, shape: RowShape<T>, build: (tenant: TenantPredicate) => SqlFragment, opts?: RunOptions): Promise<T[]> {
    let used = false;
    const fragment = build((alias) => {
      used = true;
      return scope.predicate(alias);
    });
    if (!used) throw new Error(`query on ${this.table} was built without its tenant predicate`);
    return this.checked(shape, await run<T>(managerOf(em), fragment, scope, opts));
  }

  /** Inserts and upserts: tenant_id comes from the scope, never from the caller's data. */
  protected async stamped<T>(em: DbHandle, scope: AnyScope, shape: RowShape<T>, build: (tenantId: string | null) => SqlFragment, opts?: RunOptions): Promise<T[]> {
    return this.checked(shape, await run<T>(managerOf(em), build(scope.insertValue), scope, opts));
  }

  /**
   * A read built with TypeORM's query builder on an entity, for plain CRUD where that reads
   * better than SQL text (hot paths stay hand-written). The builder the repository gets already
   * selects `shape`'s columns under their own names and is constrained by the scope's predicate;
   * the repository adds conditions with andWhere (a where() would replace the predicate and is
   * refused), order and limit. The statement runs as every other: through run(), so row-level
   * security is declared for its transaction, and rows are checked against the shape under test.
   */
  protected async select<E extends ObjectLiteral, T>(
    em: DbHandle,
    scope: AnyScope,
    shape: RowShape<T>,
    entity: EntityTarget<E>,
    alias: string,
    build: (qb: SelectQueryBuilder<E>) => SelectQueryBuilder<E>,
  ): Promise<T[]> {
    const qb = managerOf(em).connection.createQueryBuilder(entity, alias).select([]);
    for (const column of shape.columns) qb.addSelect(`${alias}.${column}`, column);
    const tenant = namedPredicate(scope, alias);
    const built = build(qb.where(tenant.condition, tenant.parameters));
    this.assertTenantKept(built.expressionMap.wheres[0]?.condition, tenant.condition);
    const [text, values] = built.getQueryAndParameters();
    return this.checked(shape, await run<T>(managerOf(em), { text, values }, scope));
  }

  /**
   * A DELETE built with TypeORM's query builder, constrained by the scope's predicate like
   * select()'s; answers how many rows it deleted.
   */
  protected async deleted<E extends ObjectLiteral>(
    em: DbHandle,
    scope: AnyScope,
    entity: EntityTarget<E>,
    build: (qb: DeleteQueryBuilder<E>) => DeleteQueryBuilder<E>,
  ): Promise<number> {
    const tenant = namedPredicate(scope);
    const qb = managerOf(em).connection.createQueryBuilder().delete().from(entity).where(tenant.condition, tenant.parameters);
    const built = build(qb).returning('1');
    this.assertTenantKept(built.expressionMap.wheres[0]?.condition, tenant.condition);
    const [text, values] = built.getQueryAndParameters();
    return (await run(managerOf(em), { text, values }, scope)).length;
  }

  private assertTenantKept(first: unknown, condition: string): void {
    if (first !== condition) throw new Error(`query on ${this.table} replaced its tenant predicate (add conditions with andWhere)`);
  }

  private checked<T>(shape: RowShape<T>, rows: T[]): T[] {
    if (CHECK_ROWS) checkRows(rows as object[], shape, this.table);
    return rows;
  }
}

/**
 * The scope's predicate as a query-builder condition: its `$n` placeholders become named
 * parameters (TypeORM numbers the statement's parameters itself).
 */
function namedPredicate(scope: AnyScope, alias?: string): { condition: string; parameters: Record<string, unknown> } {
  const { text, values } = compile(scope.predicate(alias));
  const parameters: Record<string, unknown> = {};
  const condition = text.replace(/\$(\d+)/g, (_, n: string) => {
    parameters[`scope_tenant_${n}`] = values[Number(n) - 1];
    return `:scope_tenant_${n}`;
  });
  return { condition, parameters };
}

/**
 * Rows of any statement. TypeORM's plain `query()` answers UPDATE and DELETE with
 * `[rows, rowCount]` instead of rows, so statements run through a query runner with structured
 * results: the transaction's runner when there is one (PGlite has a single connection).
 */
export interface RunOptions {
  /**
   * Run as a named prepared statement. For the hot read queries (context candidates, search):
   * their unions and laterals cost 3–4 ms of planning per call, and a prepared statement lets
   * PostgreSQL reuse a plan. Errors then come from the driver unwrapped (no QueryFailedError).
   */
  prepared?: boolean;
}

/**
 * Runs one statement of the data-access layer (not exported: every statement goes through
 * scoped() or stamped() of a repository). Where PostgreSQL row-level security applies to the
 * connected role (migration 0018; not for superusers or BYPASSRLS roles, so never on PGlite), the
 * statement runs in a transaction that first declares its scope: `app.tenant_id` for a tenant's
 * scope, `app.cross_tenant = 'on'` for an unfiltered scope (single-tenant mode's no-tenant scope,
 * an operator's every tenant or NULL-tenant rows). Then a query that forgets its tenant predicate still sees only its
 * tenant's rows. Inside a service's transaction the declaration is made once per scope change;
 * outside one, the statement gets its own short transaction (set_config(…, true) lasts as long
 * as the transaction, so nothing is left on a pooled or PgBouncer-shared session).
 */
async function run<T>(em: EntityManager, statement: SqlFragment | { text: string; values: unknown[] }, scope: AnyScope, opts: RunOptions = {}): Promise<T[]> {
  const { text, values } = statement instanceof SqlFragment ? compile(statement) : statement;
  const exec = async (): Promise<T[]> => {
    const runner = em.queryRunner ?? em.connection.createQueryRunner();
    try {
      const declare = (await rowSecurityApplies(em.connection, runner)) ? declaration(scope) : null;
      if (declare && runner.isTransactionActive) {
        if (declared.get(runner) !== declare.key) {
          await runner.query(declare.sql, declare.params);
          declared.set(runner, declare.key);
        }
      } else if (declare) {
        return await runDeclared<T>(runner, declare, text, values, opts.prepared === true);
      }
      // Outside a transaction only: a failed Parse below would abort the transaction.
      if (opts.prepared && !em.queryRunner) return await runPrepared<T>((await runner.connect()) as PoolClient, text, values);
      const result = await runner.query(text, values, true);
      return (result.records ?? []) as T[];
    } finally {
      if (!em.queryRunner) await runner.release();
    }
  };
  if (!tracingEnabled()) return exec();
  // The span carries the statement with its $n placeholders, never the parameter values.
  const operation = text.trimStart().split(/\s/, 1)[0].toUpperCase();
  return withSpan('db.query', { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': text.slice(0, MAX_SPAN_SQL_CHARS) }, exec, SpanKind.CLIENT);
}

interface Declaration {
  key: string;
  sql: string;
  params: string[];
}

function declaration(scope: AnyScope): Declaration {
  const cross = scope.filtered ? 'off' : 'on';
  const tenant = scope.tenantId ?? '';
  return {
    key: `${cross}|${tenant}`,
    sql: `SELECT set_config('app.tenant_id', $1, true), set_config('app.cross_tenant', $2, true)`,
    params: [tenant, cross],
  };
}

/** What each open transaction's runner has declared (a runner serves one transaction at a time). */
const declared = new WeakMap<QueryRunner, string>();

/** Whether policies bind the role this data source connects as; asked once per data source. */
const rowSecurity = new WeakMap<DataSource, Promise<boolean>>();

/** `via`: the runner the caller holds (PGlite has one connection: asking on another would wait for it forever). */
export function rowSecurityApplies(ds: DataSource, via?: QueryRunner): Promise<boolean> {
  let applies = rowSecurity.get(ds);
  if (applies === undefined) {
    applies = (via ?? ds)
      .query(`SELECT NOT (rolsuper OR rolbypassrls) AS applies FROM pg_roles WHERE rolname = current_user`)
      .then((rows: { applies: boolean }[]) => rows[0]?.applies === true);
    // A failed check (database down) is asked again next time rather than remembered.
    applies.catch(() => rowSecurity.delete(ds));
    rowSecurity.set(ds, applies);
  }
  return applies;
}

/**
 * One statement in its own transaction after the scope's declaration. A prepared statement that
 * the session disagrees about (see runPrepared) aborts the transaction, so each retry starts a
 * new one.
 */
async function runDeclared<T>(runner: QueryRunner, declare: Declaration, text: string, values: unknown[], prepared: boolean): Promise<T[]> {
  const client = prepared ? ((await runner.connect()) as PoolClient) : null;
  for (let attempt = 1; ; attempt++) {
    await runner.query('BEGIN');
    try {
      await runner.query(declare.sql, declare.params);
      let rows: T[];
      if (client && attempt < 3) rows = (await client.query({ name: statementName(text), text, values })).rows as T[];
      else if (client) rows = (await client.query(text, values)).rows as T[];
      else rows = ((await runner.query(text, values, true)).records ?? []) as T[];
      await runner.query('COMMIT');
      return rows;
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      const code = (err as { code?: string }).code;
      if (!client || attempt === 3 || (code !== DUPLICATE_PREPARED_STATEMENT && code !== UNDEFINED_PREPARED_STATEMENT)) throw err;
      forgetPrepared(client, statementName(text));
      if (code === DUPLICATE_PREPARED_STATEMENT) await client.query(`DEALLOCATE ${statementName(text)}`).catch(() => undefined);
    }
  }
}

/**
 * A prepared statement's name: one per distinct SQL text (the driver refuses one name for two
 * texts). Hot queries come in a handful of shapes, so the map stays small.
 */
const statementNames = new Map<string, string>();

export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `memsvc_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** SQLSTATEs of a session whose prepared statements are not what the driver remembers. */
const DUPLICATE_PREPARED_STATEMENT = '42P05';
const UNDEFINED_PREPARED_STATEMENT = '26000';

/**
 * Runs `text` as a named prepared statement. The driver remembers per connection which names it
 * has prepared; the session can disagree: PGlite serves every client connection from one
 * session, so a reconnected client meets statements its predecessor prepared (42P05), and a
 * transaction-pooling PgBouncer moves a client between server sessions (26000). Either way the
 * statement is dropped or forgotten and the query sent once more, then, if the session still
 * disagrees, unnamed: a query never fails over the plan cache.
 */
async function runPrepared<T>(client: PoolClient, text: string, values: unknown[]): Promise<T[]> {
  const name = statementName(text);
  for (let attempt = 1; ; attempt++) {
    try {
      if (attempt === 3) return (await client.query(text, values)).rows as T[];
      return (await client.query({ name, text, values })).rows as T[];
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt === 3 || (code !== DUPLICATE_PREPARED_STATEMENT && code !== UNDEFINED_PREPARED_STATEMENT)) throw err;
      forgetPrepared(client, name);
      if (code === DUPLICATE_PREPARED_STATEMENT) await client.query(`DEALLOCATE ${name}`).catch(() => undefined);
    }
  }
}

/** The driver's record of parsed statements (pg internals): forget the name so it is parsed again. */
function forgetPrepared(client: PoolClient, name: string): void {
  const connection = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection;
  if (connection?.parsedStatements) delete connection.parsedStatements[name];
}

/** Hot queries are long; a span keeps their start, enough to tell them apart. */
const MAX_SPAN_SQL_CHARS = 2000;
