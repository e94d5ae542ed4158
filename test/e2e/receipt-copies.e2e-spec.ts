import { parse, stringify } from 'lossless-json';
import request from 'supertest';
import { computeReceiptsChecksum } from 'src/modules/admin/export-document';
import { operatorScope } from 'src/common/db/tenant-scope';
import { SnapshotsService } from 'src/modules/snapshots/snapshots.service';
import { createTestApp, TestApp } from '../app-factory';

/**
 * Receipts travel with their subject (issue 19 item 1, docs/governance.md "Receipts in exports
 * and snapshots"): export/import and snapshot/restore carry them byte for byte, so they keep
 * verifying wherever they land; re-imports add nothing; another tenant never sees them.
 */
const ENV = {
  SERVICE_REQUIRE_TENANT: 'true',
  SERVICE_ENABLE_SNAPSHOTS: 'true',
  SERVICE_RECEIPT_SIGNING_KEYS: 'k1=first-secret-of-enough-length',
  SERVICE_RECEIPT_SIGNING_KEY_ID: 'k1',
};

describe('receipts in exports, imports and snapshots', () => {
  let t: TestApp;
  const receiptIds: string[] = [];

  const as = (tenant: string) => ({
    get: (path: string) => request(t.http).get(path).set('X-Tenant-ID', tenant),
    post: (path: string) => request(t.http).post(path).set('X-Tenant-ID', tenant),
    delete: (path: string) => request(t.http).delete(path).set('X-Tenant-ID', tenant),
  });
  const heldBy = async (subject: string) =>
    ((await t.ds.query(`SELECT id FROM receipts WHERE tenant_id = 'acme' AND subject_id = $1 ORDER BY id`, [subject])) as { id: string }[]).map((r) => r.id);

  const exportText = async (subject: string, tenant: string): Promise<string> => {
    const res = await request(t.http)
      .get(`/admin/export/${encodeURIComponent(subject)}?tenant_id=${tenant}`)
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => cb(null, text));
      })
      .expect(200);
    return res.body as string;
  };

  /** Documents go as text: a JSON.parse round trip would turn `1.0` into `1` and break the checksum. */
  const importDoc = (documentText: string, extra: Record<string, unknown> = {}) =>
    request(t.http).post('/admin/import').set('Content-Type', 'application/json').send(`{"document": ${documentText}, ${JSON.stringify(extra).slice(1)}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const edit = (text: string, change: (doc: any) => void): string => {
    const doc = parse(text);
    change(doc);
    return stringify(doc)!;
  };

  const bodyOf = async (tenant: string, id: string) => (await as(tenant).get(`/v1/receipts/${id}`).expect(200)).body;
  const verdictOf = async (tenant: string, id: string) => (await as(tenant).get(`/v1/receipts/${id}/verify`).expect(200)).body;
  const listed = async (tenant: string, subject: string) =>
    ((await as(tenant).get(`/v1/receipts?subject_id=${encodeURIComponent(subject)}`).expect(200)).body.receipts as { receipt_id: string }[]).map((r) => r.receipt_id);

  beforeAll(async () => {
    t = await createTestApp(ENV);
    for (const text of ['My name is Ada and I live in Lisbon.', 'I am allergic to penicillin.']) {
      await as('acme').post('/v1/episodes').send({ subject_id: 'ada', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: text }] } }).expect(201);
    }
    await as('acme').post('/v1/memories/compile').send({ subject_id: 'ada' }).expect(200);
    for (const task of ['book a doctor visit', 'plan a trip']) {
      const res = await as('acme').post('/v1/context').send({ subject_id: 'ada', task, emit_receipt: true, caller_type: 'support_bot' }).expect(200);
      expect(res.body.receipt_emitted).toBe(true);
      receiptIds.push(res.body.receipt_id);
    }
    // Another tenant's receipt under the same subject id: never part of acme's export.
    await as('globex').post('/v1/episodes').send({ subject_id: 'ada', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'globex note' }] } }).expect(201);
    const other = await as('globex').post('/v1/context').send({ subject_id: 'ada', task: 'globex task', emit_receipt: true }).expect(200);
    receiptIds.push(other.body.receipt_id);
  }, 180_000);
  afterAll(() => t.close());

  it("exports the subject's receipts as an optional field with its own checksum, the tenant's only", async () => {
    const doc = JSON.parse(await exportText('ada', 'acme'));
    expect(doc.counts).toMatchObject({ receipts: 2 });
    expect(doc.receipts_checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.receipts.map((r: { receipt: { receipt_id: string } }) => r.receipt.receipt_id).sort()).toEqual(receiptIds.slice(0, 2).sort());
    for (const item of doc.receipts) {
      expect(item.tenant_id).toBe('acme');
      expect(item.receipt).toEqual(await bodyOf('acme', item.receipt.receipt_id));
    }
    const globex = JSON.parse(await exportText('ada', 'globex'));
    expect(globex.receipts.map((r: { receipt: { receipt_id: string } }) => r.receipt.receipt_id)).toEqual([receiptIds[2]]);
  });

  it('imports into a fresh tenant and subject byte for byte: same ids, same bodies, still valid; a re-import adds nothing', async () => {
    const doc = await exportText('ada', 'acme');
    const first = await importDoc(doc, { target_tenant_id: 'initech', target_subject_id: 'ada-copy', preserve_ids: false }).expect(200);
    expect(first.body).toMatchObject({ subject_id: 'ada-copy', tenant_id: 'initech', receipts_imported: 2 });
    for (const id of receiptIds.slice(0, 2)) {
      expect(await bodyOf('initech', id)).toEqual(await bodyOf('acme', id));
      expect(await verdictOf('initech', id)).toEqual({ valid: true, key_id: 'k1', algorithm: 'hmac-sha256-canonical-v1', reason: 'ok' });
    }
    expect((await listed('initech', 'ada-copy')).sort()).toEqual(receiptIds.slice(0, 2).sort());
    // The original tenant's receipts are untouched, and globex still cannot see initech's copies.
    expect(await verdictOf('acme', receiptIds[0])).toMatchObject({ valid: true });
    await as('globex').get(`/v1/receipts/${receiptIds[0]}`).expect(404);

    const again = await importDoc(doc, { target_tenant_id: 'initech', target_subject_id: 'ada-copy', preserve_ids: false }).expect(200);
    expect(again.body.receipts_imported).toBe(0);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM receipts WHERE tenant_id = 'initech'`);
    expect(n).toBe(2);
  });

  it('imports packed and treats a copy stored before migration 0024 (entries as objects) as the same receipt', async () => {
    const doc = await exportText('ada', 'acme');
    const held = JSON.parse(doc).receipts[0].receipt;
    // A copy the tenant held from before 0024: the served body as it was stored then.
    await t.ds.query(`INSERT INTO receipts (id, tenant_id, subject_id, mode, body, created_at) VALUES ($1, 'umbrella', 'ada-copy', 'retrieval', $2, $3)`, [
      held.receipt_id,
      JSON.stringify(held),
      held.created_at,
    ]);
    const res = await importDoc(doc, { target_tenant_id: 'umbrella', target_subject_id: 'ada-copy', preserve_ids: false }).expect(200);
    expect(res.body.receipts_imported).toBe(1);
    const rows: { id: string; body: string }[] = await t.ds.query(`SELECT id, body FROM receipts WHERE tenant_id = 'umbrella' ORDER BY id`);
    expect(rows).toHaveLength(2);
    const added = rows.find((r) => r.id !== held.receipt_id)!;
    expect(Array.isArray(JSON.parse(added.body).selected_entries.rows)).toBe(true);
    for (const r of rows) expect(await verdictOf('umbrella', r.id)).toMatchObject({ valid: true, reason: 'ok' });
    expect(await bodyOf('umbrella', held.receipt_id)).toEqual(held);
  });

  it('refuses an id the tenant holds with another body (409, nothing written), and a tampered receipts list (400)', async () => {
    const original = JSON.parse(await exportText('ada', 'acme'));
    // A consistent receipts checksum, so the conflict itself is what is refused.
    const doc = edit(await exportText('ada', 'acme'), (d) => {
      d.receipts[0].receipt.task = 'something else';
      d.receipts_checksum = computeReceiptsChecksum(d.receipts);
    });
    const before = (await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE tenant_id = 'initech'`))[0].n;
    const res = await importDoc(doc, { target_tenant_id: 'initech', target_subject_id: 'elsewhere', preserve_ids: false });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect(res.body.error.message).toContain(original.receipts[0].receipt.receipt_id);
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE tenant_id = 'initech'`))[0].n).toBe(before);

    const tampered = edit(await exportText('ada', 'acme'), (d) => {
      d.receipts[0].receipt.task = 'changed without a new checksum';
    });
    const bad = await importDoc(tampered, { target_tenant_id: 'hooli', preserve_ids: false });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('checksum_mismatch');
  });

  it('imports a document without receipts (older versions), and exports a subject without receipts without the field', async () => {
    const doc = edit(await exportText('ada', 'acme'), (d) => {
      delete d.receipts;
      delete d.receipts_checksum;
      delete d.counts.receipts;
    });
    const res = await importDoc(doc, { target_tenant_id: 'umbrella', preserve_ids: false }).expect(200);
    expect(res.body).toMatchObject({ episodes_imported: 2, receipts_imported: 0 });
    const text = await exportText('ada', 'umbrella');
    const plain = JSON.parse(text);
    expect(plain).not.toHaveProperty('receipts');
    expect(plain).not.toHaveProperty('receipts_checksum');
    expect(Object.keys(plain.counts)).toEqual(['episodes', 'memories']);
  });

  it('snapshots copy the receipts and a restore brings them back unchanged and verifiable', async () => {
    const snapshots = t.app.get(SnapshotsService);
    const snap = await snapshots.create(operatorScope('acme'), 'ada', 'ada-receipts');
    expect(await heldBy(snap.snapshot_subject_id)).toEqual(receiptIds.slice(0, 2).sort());
    const restored = await request(t.http).post(`/admin/snapshots/${snap.id}/restore?tenant_id=acme`).send({ target_subject_id: 'ada-restored' });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ episodes_restored: 2, receipts_restored: 2 });
    expect((await listed('acme', 'ada-restored')).sort()).toEqual(receiptIds.slice(0, 2).sort());
    for (const id of receiptIds.slice(0, 2)) expect(await verdictOf('acme', id)).toMatchObject({ valid: true, reason: 'ok' });
    // One receipt, several holders: the unfiltered list shows it once.
    const all = ((await as('acme').get('/v1/receipts').expect(200)).body.receipts as { receipt_id: string }[]).map((r) => r.receipt_id);
    expect(all.sort()).toEqual(receiptIds.slice(0, 2).sort());
    // Restoring onto a subject that already holds them adds none; deleting the source keeps the copies.
    const again = await request(t.http).post(`/admin/snapshots/${snap.id}/restore?tenant_id=acme`).send({ target_subject_id: 'ada-restored' }).expect(200);
    expect(again.body.receipts_restored).toBe(0);
    await as('acme').delete('/v1/subjects/ada').expect(200);
    expect(await listed('acme', 'ada')).toEqual([]);
    expect(await verdictOf('acme', receiptIds[0])).toMatchObject({ valid: true });
    // globex's own receipt for its 'ada' is untouched by acme's deletion.
    expect(await verdictOf('globex', receiptIds[2])).toMatchObject({ valid: true });
  });
});
