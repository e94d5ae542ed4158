import { RowShape } from './row-shape';
import { join, raw, sql, SqlFragment, utcMicros } from './sql';
import type { TenantPredicate } from './tenant-scoped.repository';

/**
 * One page of rows in `(created_at, key)` order (oldest first, or newest first when
 * `descending`) after a cursor, bounded twice: at most `limit` rows, and rows are added while
 * those before them total under `maxBytes` (so a page exceeds it by at most its last row and
 * always has at least one). Sizes are measured on the page's candidate rows only (`limit + 1`
 * of them), never on the whole table. The episodes and memories timelines and the webhook event
 * listing page this way; each room passes its table, key, filter, size expression and output columns.
 */
export interface KeysetPage {
  /** CTEs that come first (as-of views shadowing the table), each followed by a comma; none when absent. */
  views?: SqlFragment;
  /** The table, or the as-of view of the same name. */
  table: string;
  /** The unique second sort key after `created_at`, and its SQL type (for the cursor's value). */
  key: { column: string; type: 'uuid' | 'bigint' };
  /** The size of a row, over alias `c`. */
  bytes: SqlFragment;
  /** Which rows, over alias `c`, besides the tenant predicate: conditions all rows meet (e.g. their subject). */
  where: SqlFragment[];
  /** Newest first; oldest first when absent. */
  descending?: boolean;
  /** Continue after this row in the page's order (`at`: its created_at with microseconds; `key`: its key). */
  after: { at: string; key: string } | null;
  limit: number;
  maxBytes: number;
  /** The output columns, over alias `x`. */
  select: SqlFragment;
}

/** What the statement adds to each row; `keysetPageResult` takes it off again. */
export interface KeysetPageExtras {
  cursor_at: string;
  cursor_key: string;
  candidates: number;
}

/** The shape of a page's rows: the caller's columns (`select`'s shape) and the extras. */
export function keysetPageShape<T>(select: RowShape<T>): RowShape<T & KeysetPageExtras> {
  return select.with<KeysetPageExtras>({ cursor_at: true, cursor_key: true, candidates: true });
}

/** The statement of a page; `t` is the repository's tenant predicate (every table reference is scoped). */
export function keysetPageSql(t: TenantPredicate, q: KeysetPage): SqlFragment {
  const table = raw(q.table);
  const key = raw(q.key.column);
  const [dir, past] = q.descending ? [raw(' DESC'), raw('<')] : [raw(''), raw('>')];
  const after = q.after ? [sql`(c.created_at, c.${key}) ${past} (${q.after.at}::timestamptz, ${q.after.key}::${raw(q.key.type)})`] : [];
  return sql`
    WITH ${q.views ?? raw('')} candidates AS (
      SELECT c.id, c.created_at, c.${key} AS key, ${q.bytes} AS bytes FROM ${table} c
      WHERE ${join([t('c'), ...q.where, ...after], ' AND ')}
      ORDER BY c.created_at${dir}, c.${key}${dir}
      LIMIT ${q.limit + 1}
    ), budgeted AS (
      SELECT id, row_number() OVER w AS n, sum(bytes) OVER w - bytes AS before FROM candidates
      WINDOW w AS (ORDER BY created_at${dir}, key${dir} ROWS UNBOUNDED PRECEDING)
    )
    SELECT ${q.select}, ${utcMicros('x.created_at')} AS cursor_at,
      x.${key}::text AS cursor_key, (SELECT count(*)::int FROM candidates) AS candidates
    FROM budgeted b JOIN ${table} x ON x.id = b.id
    WHERE ${t('x')} AND b.n <= ${q.limit} AND b.before < ${q.maxBytes}
    ORDER BY x.created_at${dir}, x.${key}${dir}`;
}

/**
 * The page's rows with the statement's extras taken off (in place: a page can hold thousands of
 * rows), the cursor of the last row, and whether rows remain after it.
 */
export function keysetPageResult<T extends object>(rows: (T & KeysetPageExtras)[]): { rows: T[]; last: { at: string; key: string } | null; more: boolean } {
  const lastRow = rows.at(-1);
  const more = rows.length > 0 && rows[0].candidates > rows.length;
  const last = lastRow ? { at: lastRow.cursor_at, key: lastRow.cursor_key } : null;
  for (const r of rows) {
    const extras: Partial<KeysetPageExtras> = r;
    delete extras.cursor_at;
    delete extras.cursor_key;
    delete extras.candidates;
  }
  return { rows, last, more };
}

/**
 * Every row of a read made in keyset pages, page after page: each page starts after the previous
 * page's last row (its `next` cursor). A page may stop short of its row limit at a byte budget,
 * so only an empty page ends the read.
 */
export async function* keysetRows<R, C>(fetch: (after: C | null) => Promise<{ rows: R[]; next: C | null }>): AsyncGenerator<R> {
  let after: C | null = null;
  for (;;) {
    const page = await fetch(after);
    yield* page.rows;
    if (page.rows.length === 0 || page.next === null) return;
    after = page.next;
  }
}
