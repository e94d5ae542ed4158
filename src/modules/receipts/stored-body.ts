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
 * back without this code too (docs/governance.md "How receipts are stored"); what leaves the
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
  const body = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Omit<ReceiptBody, 'selected_entries'> & { selected_entries: SelectedEntry[] | PackedEntries };
  const entries = body.selected_entries;
  if (Array.isArray(entries)) return body as ReceiptBody;
  return { ...body, selected_entries: unpackEntries(entries) };
}

function packEntries(entries: readonly SelectedEntry[]): PackedEntries | null {
  if (entries.length === 0) return null;
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

function unpackEntries(packed: PackedEntries): SelectedEntry[] {
  const { columns, rows } = packed;
  if (!Array.isArray(columns) || !Array.isArray(rows)) throw new Error('stored receipt body: selected_entries is neither a list nor packed columns and rows');
  return rows.map((row) => {
    if (!Array.isArray(row) || row.length !== columns.length) throw new Error('stored receipt body: a packed entry does not match its columns');
    // fromEntries defines own properties, so even a key such as "__proto__" reads back as it was.
    return Object.fromEntries(columns.map((column, i) => [column, row[i]])) as unknown as SelectedEntry;
  });
}
