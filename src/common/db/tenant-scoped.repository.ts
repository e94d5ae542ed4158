import { SpanKind } from '@opentelemetry/api';
import { EntityManager } from 'typeorm';
import { tracingEnabled, withSpan } from 'src/common/tracing/tracing';
import { compile, SqlFragment } from './sql';
import { TenantScope } from './tenant-scope';

export type TenantPredicate = (alias?: string) => SqlFragment;

/**
 * Base of every repository over a table with tenant_id. Queries are built by a callback that
 * receives the scope's predicate; a query that never asks for it is refused at run time, so a
 * forgotten tenant filter fails loudly in the first test instead of leaking data.
 */
export abstract class TenantScopedRepository {
  protected abstract readonly table: string;

  protected async scoped<T = Record<string, unknown>>(
    em: EntityManager,
    scope: TenantScope,
    build: (tenant: TenantPredicate) => SqlFragment,
  ): Promise<T[]> {
    let used = false;
    const fragment = build((alias) => {
      used = true;
      return scope.predicate(alias);
    });
    if (!used) throw new Error(`query on ${this.table} was built without its tenant predicate`);
    return run<T>(em, fragment);
  }

  /** Inserts and upserts: tenant_id comes from the scope, never from the caller's data. */
  protected async stamped<T = Record<string, unknown>>(
    em: EntityManager,
    scope: TenantScope,
    build: (tenantId: string | null) => SqlFragment,
  ): Promise<T[]> {
    return run<T>(em, build(scope.insertValue));
  }
}

/**
 * Rows of any statement. TypeORM's plain `query()` answers UPDATE and DELETE with
 * `[rows, rowCount]` instead of rows, so statements run through a query runner with structured
 * results: the transaction's runner when there is one (PGlite has a single connection).
 */
export async function run<T>(em: EntityManager, fragment: SqlFragment): Promise<T[]> {
  const { text, values } = compile(fragment);
  const exec = async (): Promise<T[]> => {
    const runner = em.queryRunner ?? em.connection.createQueryRunner();
    try {
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

/** Hot queries are long; a span keeps their start, enough to tell them apart. */
const MAX_SPAN_SQL_CHARS = 2000;
