import { AppError } from 'src/common/errors/app-error';
import { join, raw, sql, SqlFragment } from './sql';

/**
 * As-of reads (docs/governance.md, "As-of reads"): a read that answers as the service would have
 * at a past instant. Times are compared at millisecond precision, the precision of an `as_of`
 * the service hands out (receipts) and of a JavaScript Date: a row belongs to instant T when its
 * time falls in T's millisecond or before it. The database keeps microseconds, and a read made at
 * 12:00:00.123456 is stamped 12:00:00.123; comparing `< T + 1 ms` keeps what it saw.
 */
export function asOfBound(at: Date): SqlFragment {
  return sql`${new Date(at.getTime() + 1).toISOString()}::timestamptz`;
}

/**
 * The request's `as_of`, or null when absent. A time in the future is refused with 422 naming
 * the field (the contract): there is no answer yet for an instant that has not happened.
 */
export function parseAsOf(value: string | undefined, loc: (string | number)[], now: Date = new Date()): Date | null {
  if (value === undefined) return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw AppError.validation(loc, 'as_of must be an ISO-8601 time');
  if (at.getTime() > now.getTime()) throw AppError.validation(loc, 'as_of is in the future; an as-of read answers for a past instant');
  return at;
}

/**
 * `WITH a, b` over the given common table expressions, or nothing for none. As-of views are
 * CTEs named like the tables they stand for, so they shadow them for the whole statement
 * (nested subqueries and laterals included) while the query text stays the one of a current read.
 */
export function withClause(ctes: SqlFragment[]): SqlFragment {
  return ctes.length === 0 ? raw('') : sql`WITH ${join(ctes, ', ')}`;
}
