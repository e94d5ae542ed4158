/**
 * The columns a statement answers with, and the row type they make (issue 18: no unchecked casts
 * of query results). A repository passes a RowShape to scoped()/stamped() instead of naming a
 * type; the type is derived from the shape (an entity's columns, or an exhaustive key list), and
 * under test every returned row is checked to carry exactly the shape's columns, so SQL that
 * selects a column the type lacks, or lacks one the type promises, fails the first test that runs
 * it. Production skips the check (CHECK_ROWS below): one boolean test per statement.
 */
export class RowShape<T> {
  /** Phantom: carries the row type; never set. */
  declare readonly row: T;

  constructor(
    readonly columns: readonly string[],
    /** Columns a statement may or may not select (the embedding, read only when asked for). */
    readonly optional: readonly string[] = [],
  ) {}

  /** The shape plus columns the statement adds (a cursor, a rank), typed by `extra`'s keys. */
  with<X>(extra: Exhaustive<X>): RowShape<T & X> {
    return new RowShape<T & X>([...this.columns, ...Object.keys(extra)], this.optional);
  }
}

/** Every key of T, each exactly once (an object literal: a missing or extra key fails to compile). */
export type Exhaustive<T> = { readonly [K in keyof T]-?: true };

/** A row of computed columns (`count(*) AS n`): the key list must name every field of T. */
export function rowOf<T>(keys: Exhaustive<T>): RowShape<T> {
  return new RowShape<T>(Object.keys(keys));
}

/** A row of some of an entity's columns, typed as the entity's declarations of them. */
export function entityRow<E, K extends keyof E & string, O extends keyof E & string = never>(
  _entity: abstract new () => E,
  columns: readonly K[],
  optional: readonly O[] = [],
): RowShape<Pick<E, K> & Partial<Pick<E, O>>> {
  return new RowShape(columns, optional);
}

/** `T` with the columns `K` read as text: string, or string | null where the column may be NULL. */
export type AsText<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? string | null : string };

/**
 * The shape with some of its columns selected as text (`col::text`, `to_char(…)`): for reads that
 * must hand on exactly what is stored, which a parsed value would not (a jsonb number's spelling,
 * a timestamp's microseconds that a Date drops) — the operator export. The row's columns are the
 * shape's; only their types change. A column the shape lacks throws when the module loads.
 */
export function asText<T, K extends keyof T & string>(shape: RowShape<T>, columns: readonly K[]): RowShape<AsText<T, K>> {
  const unknown = columns.filter((c) => !shape.columns.includes(c) && !shape.optional.includes(c));
  if (unknown.length > 0) throw new Error(`asText: the shape has no column ${unknown.join(', ')}`);
  return new RowShape<AsText<T, K>>(shape.columns, shape.optional);
}

/**
 * Whether returned rows are checked against their shape: under test (jest sets NODE_ENV=test) or
 * when DB_CHECK_ROWS=1; read once, so production pays one boolean test per statement.
 */
export const CHECK_ROWS = process.env.NODE_ENV === 'test' || process.env.DB_CHECK_ROWS === '1';

/** Throws unless every row has all of the shape's columns, optional ones aside, and no other. */
export function checkRows(rows: readonly object[], shape: RowShape<unknown>, table: string): void {
  for (const row of rows) {
    const keys = Object.keys(row);
    const missing = shape.columns.filter((c) => !(c in row));
    const extra = keys.filter((k) => !shape.columns.includes(k) && !shape.optional.includes(k));
    if (missing.length > 0 || extra.length > 0) {
      throw new Error(
        `a statement on ${table} answered columns that differ from its row shape:` +
          `${missing.length ? ` missing ${missing.join(', ')};` : ''}${extra.length ? ` not declared ${extra.join(', ')};` : ''}` +
          ` got ${keys.join(', ')}`,
      );
    }
  }
}

/** `SELECT count(*)::int AS n …`, the commonest computed row. */
export const COUNT = rowOf<{ n: number }>({ n: true });

/** `… RETURNING id`: the ids of the rows a statement changed. */
export const ID_ROW = rowOf<{ id: string }>({ id: true });

/**
 * A statement whose result is not read (an UPDATE or INSERT without RETURNING, DDL): a row it
 * did answer fails the check, and its rows' type (`never`) leaves nothing to read.
 */
export const NO_ROWS = new RowShape<never>([]);
