import type { ReceiptBody, SelectedEntry } from './receipt-body';

/**
 * How a receipt body is stored (migration 0024): the body as served, except that
 * `selected_entries` is packed as `{"columns": [key, …], "rows": [[value, …], …]}`, one row per
 * entry with its values in the order of `columns`. A receipt holds one entry per bundle item (about
 * a hundred at a 4,000-token budget), and the same sixteen key names repeated in every entry were
 * half of its bytes. Every byte of a receipt is written, sent over the wire protocol, logged to the
 * WAL and left as garbage on the context path; on the embedded engine all of it is the request's
 * own CPU (bench/README.md "Receipt cost on the context path", round 6).
 *
 * Packing is lossless by construction: the columns are the entries' own keys in their own order,
 * and an entry list whose entries do not all have exactly those keys is stored as it came, so the
 * body read back is the body that was signed, and its canonical form (RFC 8785, what the
 * signature covers) is byte for byte the same. The stored form names its columns, so it reads
 * back without this code too (docs/governance.md "Storage and durability of receipts"); what leaves the
 * service (the API, MCP, export documents) is always the served form.
 */

/** `selected_entries` as stored: the entries' keys once, then their values. */
export interface PackedEntries {
  columns: string[];
  rows: unknown[][];
}

/** The text stored for a body: JSON, with the entries packed when they can be. */
export function storedText(body: ReceiptBody): string {
  const packed = packEntries(body.selected_entries);
  return JSON.stringify(packed === null ? body : { ...body, selected_entries: packed });
}

/**
 * A stored body as served. Takes the stored text, or an object already parsed (a schema before
 * migration 0020 answers jsonb, which the driver parses); either form of the entries reads back.
 */
export function servedBody(stored: string | object): ReceiptBody {
  const body = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Omit<ReceiptBody, 'selected_entries'> & { selected_entries: unknown };
  const entries = unpackEntries(body.selected_entries);
  return entries === null ? (body as ReceiptBody) : { ...body, selected_entries: entries };
}

function packEntries(entries: readonly SelectedEntry[] | undefined): PackedEntries | null {
  // A body without a list (an imported one may be anything) is stored as it came.
  if (!Array.isArray(entries) || entries.length === 0) return null;
  const columns = Object.keys(entries[0]);
  const rows: unknown[][] = [];
  for (const entry of entries) {
    const keys = Object.keys(entry);
    if (keys.length !== columns.length || keys.some((key, i) => key !== columns[i])) return null;
    const values = Object.values(entry);
    // JSON drops an undefined property but writes null for an undefined array item: packing it
    // would change the body (and its canonical form), so such a list is stored as it came.
    if (values.includes(undefined)) return null;
    rows.push(values);
  }
  return { columns, rows };
}

/**
 * The entries of a packed list, or null for anything else: a list of objects (stored before 0024,
 * or not packable), and a list that is not well-formed packing, which is left as it is rather
 * than guessed at (an imported body may hold anything; one that is not what was signed fails
 * verification, which is the honest answer).
 */
function unpackEntries(stored: unknown): SelectedEntry[] | null {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return null;
  const { columns, rows } = stored as Partial<PackedEntries>;
  if (!Array.isArray(columns) || !Array.isArray(rows) || !columns.every((c) => typeof c === 'string')) return null;
  if (!rows.every((row) => Array.isArray(row) && row.length === columns.length)) return null;
  // fromEntries defines own properties, so even a key such as "__proto__" reads back as it was.
  return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, (row as unknown[])[i]])) as unknown as SelectedEntry);
}
