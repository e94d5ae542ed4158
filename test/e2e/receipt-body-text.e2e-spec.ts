import { downgrade, upgrade } from 'src/db/migration-runner';
import { episodeEntry, memoryEntry, ReceiptBody } from 'src/modules/receipts/receipt-body';
import { sign, verify } from 'src/modules/receipts/signing';
import { servedBody, storedText } from 'src/modules/receipts/stored-body';
import { useScratchDb } from '../support/scratch-db';

/**
 * Migration 0020 stores receipt bodies as uncompressed text instead of jsonb (bench/README.md
 * "Receipt cost on the context path"). A receipt written before it, as jsonb, must read back
 * with the same values and keep verifying; the immutability trigger still holds.
 */
const KEYS = { activeKeyId: 'k1', keys: new Map([['k1', Buffer.from('first-secret-of-enough-length')]]) };

function signedBody(id: string): ReceiptBody {
  const body: ReceiptBody = {
    receipt_id: id,
    parent_receipt_id: null,
    mode: 'retrieval',
    query_id: 'q-1',
    task_id: null,
    tenant_id: 'acme',
    subject_id: 'ada',
    task: 'book a doctor visit — naïve 😀',
    as_of: '2026-11-25T10:00:00.123Z',
    created_at: '2026-11-25T10:00:00.125Z',
    selected_entries: [
      memoryEntry(
        { id: '00000000-0000-4000-8000-000000000001', kind: 'profile_fact', content: 'Allergic to penicillin', valid_from: new Date('2026-11-01T00:00:00Z'), valid_to: null, status: 'active', source_episode_ids: ['00000000-0000-4000-8000-0000000000e1'], attribute_key: 'allergy' },
        0,
        0.1234567891,
      ),
      episodeEntry({ id: '00000000-0000-4000-8000-0000000000e1', source: 'user', type: 'conversation', created_at: new Date('2026-11-01T00:00:00Z') }, 1, 1e-7),
    ],
    policy: { policy_bundle_hash: null, filters_applied: [], filters_skipped: [], mode: 'enforce' },
    output: { context_hash: 'a'.repeat(64), context_size_bytes: 1234, canonicalization_version: 'utf8-sha256-v1', token_estimate: 300 },
    region: null,
    request: { endpoint: 'context', max_tokens: 4000, session_id: null, caller_id: null, caller_type: null, reason: null },
    policy_snapshot: { bundle_hash: null, bundle_yaml: null, captured_at: '2026-11-25T10:00:00.125Z' },
    receipt_signature: null,
    receipt_signature_key_id: null,
    receipt_signature_algorithm: null,
  };
  const signature = sign(body as unknown as Record<string, unknown>, KEYS)!;
  return { ...body, receipt_signature: signature.signature, receipt_signature_key_id: signature.key_id, receipt_signature_algorithm: signature.algorithm };
}

describe('migration 0020: receipt bodies as text', () => {
  const scratch = useScratchDb();

  it('keeps a receipt written as jsonb before it readable and valid, and still immutable', async () => {
    await upgrade(scratch.ds, '0019_receipt_copies');
    const body = signedBody('01JDZ00000000000000000000A');
    await scratch.ds.query(`INSERT INTO receipts (id, tenant_id, subject_id, mode, body, created_at) VALUES ($1, 'acme', 'ada', 'retrieval', $2::jsonb, $3)`, [
      body.receipt_id,
      JSON.stringify(body),
      body.created_at,
    ]);
    await upgrade(scratch.ds, 'head');

    const [row] = await scratch.ds.query(`SELECT body, pg_typeof(body)::text AS type FROM receipts WHERE id = $1`, [body.receipt_id]);
    expect(row.type).toBe('text');
    const stored = JSON.parse(row.body);
    expect(stored).toEqual(body);
    expect(verify(stored, KEYS)).toEqual({ valid: true, key_id: 'k1', algorithm: 'hmac-sha256-canonical-v1', reason: 'ok' });
    // A changed value still fails, so the check above is not vacuous.
    expect(verify({ ...stored, task: 'other' }, KEYS).reason).toBe('signature_mismatch');
    await expect(scratch.ds.query(`UPDATE receipts SET body = '{}' WHERE id = $1`, [body.receipt_id])).rejects.toThrow(/immutable/);
  });
});

const POSTGRES = (process.env.TEST_ENGINE ?? 'pglite') === 'postgres';
const bodyColumn = async (ds: { query(sql: string): Promise<{ storage: string; compression: string }[]> }) =>
  (await ds.query(`SELECT attstorage AS storage, attcompression::text AS compression FROM pg_attribute WHERE attrelid = 'receipts'::regclass AND attname = 'body'`))[0];

describe('migration 0023: receipt bodies compressed with lz4 where the server has it', () => {
  const scratch = useScratchDb();

  it('compresses bodies written after it on PostgreSQL (uncompressed on the embedded engine), reads both alike, and goes back to 0020 storage on downgrade', async () => {
    await upgrade(scratch.ds, '0022_health_history');
    expect(await bodyColumn(scratch.ds)).toEqual({ storage: 'e', compression: '' });
    const before = signedBody('01JDZ00000000000000000000B');
    const insert = (body: ReceiptBody) =>
      scratch.ds.query(`INSERT INTO receipts (id, tenant_id, subject_id, mode, body, created_at) VALUES ($1, 'acme', 'ada', 'retrieval', $2, $3)`, [
        body.receipt_id,
        // Repeated entries: a body the size of a real bundle's, large enough to be compressed.
        JSON.stringify({ ...body, selected_entries: Array.from({ length: 80 }, () => body.selected_entries).flat() }),
        body.created_at,
      ]);
    await insert(before);
    await upgrade(scratch.ds, 'head');
    const after = signedBody('01JDZ00000000000000000000C');
    await insert(after);

    expect(await bodyColumn(scratch.ds)).toEqual(POSTGRES ? { storage: 'x', compression: 'l' } : { storage: 'e', compression: '' });
    const rows: { id: string; body: string; method: string | null }[] = await scratch.ds.query(
      `SELECT id, body, pg_column_compression(body) AS method FROM receipts ORDER BY id`,
    );
    expect(rows.map((r) => r.method)).toEqual([null, POSTGRES ? 'lz4' : null]);
    for (const [row, body] of [[rows[0], before], [rows[1], after]] as const) {
      const stored = JSON.parse(row.body) as ReceiptBody;
      expect(stored.receipt_id).toBe(body.receipt_id);
      expect(stored.selected_entries).toHaveLength(160);
    }

    await downgrade(scratch.ds, '0022_health_history');
    expect(await bodyColumn(scratch.ds)).toEqual({ storage: 'e', compression: '' });
    expect((await scratch.ds.query(`SELECT count(*)::int AS n FROM receipts`))[0].n).toBe(2);
  });
});

describe('migration 0024: receipt entries stored packed', () => {
  const scratch = useScratchDb();

  it('reads bodies from before it and packed ones alike, and a downgrade turns packed entries back into objects that still verify', async () => {
    await upgrade(scratch.ds, '0023_receipt_body_lz4');
    const insert = (id: string, text: string, created: string) =>
      scratch.ds.query(`INSERT INTO receipts (id, tenant_id, subject_id, mode, body, created_at) VALUES ($1, 'acme', 'ada', 'retrieval', $2, $3)`, [id, text, created]);
    const before = signedBody('01JDZ00000000000000000000D');
    await insert(before.receipt_id, JSON.stringify(before), before.created_at);
    await upgrade(scratch.ds, 'head');
    const after = signedBody('01JDZ00000000000000000000E');
    await insert(after.receipt_id, storedText(after), after.created_at);

    const read = async () => (await scratch.ds.query(`SELECT body FROM receipts ORDER BY id`)).map((r: { body: string }) => r.body) as string[];
    const [oldText, packedText] = await read();
    expect(Array.isArray(JSON.parse(oldText).selected_entries)).toBe(true);
    expect(JSON.parse(packedText).selected_entries.columns).toEqual(Object.keys(after.selected_entries[0]));
    for (const [text, body] of [[oldText, before], [packedText, after]] as const) {
      expect(servedBody(text)).toEqual(body);
      expect(verify(servedBody(text) as unknown as Record<string, unknown>, KEYS)).toMatchObject({ valid: true, reason: 'ok' });
    }

    await downgrade(scratch.ds, '0023_receipt_body_lz4');
    const unpacked = await read();
    for (const [text, body] of [[unpacked[0], before], [unpacked[1], after]] as const) {
      // What a version before 0024 does with a stored body: parse it, and verify it as it is.
      const stored = JSON.parse(text) as ReceiptBody;
      expect(stored).toEqual(body);
      expect(verify(stored as unknown as Record<string, unknown>, KEYS)).toMatchObject({ valid: true, reason: 'ok' });
    }
    // The rewrite lifted the immutability trigger only for itself.
    await expect(scratch.ds.query(`UPDATE receipts SET body = '{}' WHERE id = $1`, [after.receipt_id])).rejects.toThrow(/immutable/);
    await upgrade(scratch.ds, 'head');
  });
});
