/**
 * A JSON value as PostgreSQL's jsonb gives it back: every object's keys in jsonb's storage order
 * (shorter keys first by UTF-8 byte length, equal lengths by their bytes), which is the order
 * `JSON.parse` of jsonb's text output builds them in. Ingestion answers with what it stored
 * without reading it back: the response is then the same, key order included, as when the rows
 * were returned by the INSERT (and as every later read). Values are otherwise kept: numbers,
 * strings, booleans and null come back from jsonb equal to what the service sent (a double's
 * shortest text is exact in numeric, duplicate keys were already resolved by the body's parser,
 * as jsonb resolves them: the last wins).
 */
export function asJsonb<T>(value: T): T {
  // Usually every object's keys already are in that order (`{"messages":[{"role","content"}]}`):
  // the value is then its own jsonb form, and copying it would only make garbage.
  return inJsonbOrder(value) ? value : reordered(value);
}

/** Whether every object in `value` has its keys in jsonb's order. */
function inJsonbOrder(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const v of value) if (!inJsonbOrder(v)) return false;
    return true;
  }
  const keys = Object.keys(value);
  if (!isJsonbOrder(keys)) return false;
  for (const k of keys) if (!inJsonbOrder((value as Record<string, unknown>)[k])) return false;
  return true;
}

/** A copy of `value` with every object's keys in jsonb's order. */
function reordered<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(reordered) as T;
  const keys = Object.keys(value);
  const ordered = isJsonbOrder(keys) ? keys : [...keys].sort(compareJsonbKeys);
  const out: Record<string, unknown> = {};
  for (const k of ordered) out[k] = reordered((value as Record<string, unknown>)[k]);
  return out as T;
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** jsonb's key order (lengthCompareJsonbStringValue): byte length, then bytes. */
export function compareJsonbKeys(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) {
    // One byte per code unit: lengths and code units order as the bytes do.
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length !== y.length ? x.length - y.length : Buffer.compare(x, y);
}

function isJsonbOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (compareJsonbKeys(keys[i - 1], keys[i]) > 0) return false;
  return true;
}
