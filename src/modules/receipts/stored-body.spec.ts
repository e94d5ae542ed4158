import canonicalize from 'canonicalize';
import { episodeEntry, memoryEntry, ReceiptBody, SelectedEntry } from './receipt-body';
import { servedBody, storedText } from './stored-body';

const entries = (n: number): SelectedEntry[] =>
  Array.from({ length: n }, (_, i) =>
    i % 3 === 2
      ? episodeEntry({ id: `e-${i}`, source: 'user', type: 'conversation', created_at: new Date(Date.UTC(2026, 10, 1, 0, i)) }, i, 1 / (i + 3))
      : memoryEntry(
          { id: `m-${i}`, kind: 'profile_fact', content: `fact ${i} — naïve 😀`, valid_from: new Date(Date.UTC(2026, 10, 1)), valid_to: i === 1 ? new Date(Date.UTC(2026, 10, 2)) : null, status: 'active', source_episode_ids: [`e-${i}`, `e-${i + 1}`], attribute_key: i === 0 ? 'city' : null },
          i,
          i === 4 ? null : 0.1234567891 * i,
        ),
  );

const body = (selected: SelectedEntry[]): ReceiptBody => ({
  receipt_id: '01JDZ00000000000000000000A',
  parent_receipt_id: null,
  mode: 'retrieval',
  query_id: null,
  task_id: null,
  tenant_id: 'acme',
  subject_id: 'ada',
  task: 'book a doctor visit',
  as_of: '2026-11-25T10:00:00.123Z',
  created_at: '2026-11-25T10:00:00.125Z',
  selected_entries: selected,
  policy: { policy_bundle_hash: null, filters_applied: [], filters_skipped: [], mode: 'enforce' },
  output: { context_hash: 'a'.repeat(64), context_size_bytes: 1234, canonicalization_version: 'utf8-sha256-v1', token_estimate: 300 },
  region: null,
  request: { endpoint: 'context', max_tokens: 4000, session_id: null, caller_id: null, caller_type: null, reason: null },
  policy_snapshot: { bundle_hash: null, bundle_yaml: null, captured_at: '2026-11-25T10:00:00.125Z' },
  receipt_signature: 'b'.repeat(64),
  receipt_signature_key_id: 'k1',
  receipt_signature_algorithm: 'hmac-sha256-canonical-v1',
});

describe('stored receipt bodies (migration 0024)', () => {
  it('packs the entries as columns and rows and reads back the body as served, canonical form and key order included', () => {
    const original = body(entries(90));
    const text = storedText(original);
    const stored = JSON.parse(text);
    expect(stored.selected_entries.columns).toEqual(Object.keys(original.selected_entries[0]));
    expect(stored.selected_entries.rows).toHaveLength(90);
    expect(stored.selected_entries.rows[2]).toEqual(Object.values(original.selected_entries[2]));
    // Everything but the entries is stored as served.
    expect({ ...stored, selected_entries: null }).toEqual({ ...original, selected_entries: null });
    expect(text.length).toBeLessThan(0.6 * JSON.stringify(original).length);

    const read = servedBody(text);
    expect(read).toEqual(original);
    expect(JSON.stringify(read)).toBe(JSON.stringify(original));
    expect(canonicalize(read)).toBe(canonicalize(original));
  });

  it('stores entries that do not all share the same keys, an undefined value, and an empty list, as they came', () => {
    const uneven = entries(4) as unknown as Record<string, unknown>[];
    delete uneven[3].fact_key;
    const reordered = entries(3).map((e, i) => (i === 1 ? (Object.fromEntries(Object.entries(e).reverse()) as unknown as SelectedEntry) : e));
    const undefinedValue = entries(2).map((e, i) => (i === 1 ? { ...e, score: undefined as unknown as number } : e));
    for (const selected of [uneven as unknown as SelectedEntry[], reordered, undefinedValue, []]) {
      const text = storedText(body(selected));
      expect(JSON.parse(text).selected_entries).toEqual(JSON.parse(JSON.stringify(selected)));
      expect(canonicalize(servedBody(text))).toBe(canonicalize(body(selected)));
    }
  });

  it('reads bodies stored before 0024 (text, or jsonb the driver parsed) and keys that are not identifiers', () => {
    const original = body(entries(3));
    expect(servedBody(JSON.stringify(original))).toEqual(original);
    expect(servedBody(JSON.parse(JSON.stringify(original)))).toEqual(original);
    // An imported body may carry any keys: "__proto__" stays an ordinary key both ways.
    const odd = JSON.parse(JSON.stringify(original).replace(/"fact_key"/g, '"__proto__"')) as ReceiptBody;
    const read = servedBody(storedText(odd));
    expect(Object.keys(read.selected_entries[0])).toContain('__proto__');
    expect(canonicalize(read)).toBe(canonicalize(odd));
  });

  it('leaves a body without entries, or with packing that does not match its columns, as it is rather than guessing', () => {
    const stored = JSON.parse(storedText(body(entries(2))));
    stored.selected_entries.rows[1].pop();
    expect(servedBody(JSON.stringify(stored))).toEqual(stored);
    const bare = { receipt_id: 'r' } as unknown as ReceiptBody;
    expect(JSON.parse(storedText(bare))).toEqual(bare);
    expect(servedBody(storedText(bare))).toEqual(bare);
  });
});
