import { createHash } from 'node:crypto';
import request from 'supertest';
import type { ReceiptBody } from 'src/modules/receipts/receipt-body';
import { storedText } from 'src/modules/receipts/stored-body';
import { createTestApp, ingestText, TestApp } from '../app-factory';

/**
 * Receipts, signatures and policy as the TypeScript 1.4 / Python 0.8 clients speak them
 * (shared/contract/governance.md): snake_case bodies, the same field names and verdicts.
 */
const KEYS = { SERVICE_RECEIPT_SIGNING_KEYS: 'k1=first-secret-of-enough-length,k2=second-secret-of-enough-length', SERVICE_RECEIPT_SIGNING_KEY_ID: 'k1' };
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

async function seed(t: TestApp, subject: string): Promise<void> {
  await ingestText(t, subject, 'My name is Ada and I live in Lisbon.');
  await ingestText(t, subject, 'I am allergic to penicillin.');
  await ingestText(t, subject, 'I prefer email over phone calls.');
  await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
}

describe('receipts of context and handoff', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(KEYS);
    await seed(t, 'ada');
  });
  afterAll(() => t.close());

  it('writes no receipt unless asked (RECEIPTS=on_request) and says so', async () => {
    const res = await request(t.http).post('/v1/context').send({ subject_id: 'ada', task: 'book a doctor visit' }).expect(200);
    expect(res.body).toMatchObject({ receipt_id: null, receipt_emitted: false });
    expect((await t.ds.query('SELECT count(*)::int AS n FROM receipts'))[0].n).toBe(0);
  });

  it('records one entry per bundle item in bundle order, with the hash of the assembled text', async () => {
    await ingestText(t, 'ada', 'The doctor visit should be on a Tuesday.');
    const res = await request(t.http)
      .post('/v1/context')
      .send({ subject_id: 'ada', task: 'book a doctor visit', emit_receipt: true, query_id: 'q-1', task_id: 't-1', caller_id: 'agent-7', caller_type: 'support_bot' })
      .expect(200);
    expect(res.body.receipt_emitted).toBe(true);
    expect(res.body.receipt_id).toMatch(ULID);
    // A receipt waits for its commit's flush by default; the pooled session (one connection in
    // tests) keeps the server's setting either way (RECEIPT_ASYNC_COMMIT=true: see below).
    expect((await t.ds.query('SHOW synchronous_commit'))[0].synchronous_commit).toBe('on');
    const receipt = (await request(t.http).get(`/v1/receipts/${res.body.receipt_id}`).expect(200)).body;
    expect(receipt).toMatchObject({
      receipt_id: res.body.receipt_id,
      parent_receipt_id: null,
      mode: 'retrieval',
      query_id: 'q-1',
      task_id: 't-1',
      tenant_id: null,
      subject_id: 'ada',
      task: 'book a doctor visit',
      region: null,
      receipt_signature_key_id: 'k1',
      receipt_signature_algorithm: 'hmac-sha256-canonical-v1',
      policy: { policy_bundle_hash: null, filters_applied: [], filters_skipped: [], mode: 'enforce' },
      policy_snapshot: { bundle_hash: null, bundle_yaml: null },
    });
    expect(receipt.output).toEqual({
      context_hash: sha256(res.body.assembled_context),
      context_size_bytes: Buffer.byteLength(res.body.assembled_context, 'utf8'),
      canonicalization_version: 'utf8-sha256-v1',
      token_estimate: res.body.token_estimate,
    });
    expect(receipt.receipt_signature).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(receipt.as_of).getTime()).toBeLessThanOrEqual(new Date(receipt.created_at).getTime());
    const p = res.body.provenance;
    const bundleIds = [...p.fact_ids, ...p.summary_ids, ...p.procedure_ids, ...p.episode_ids];
    const entries = receipt.selected_entries as Record<string, unknown>[];
    expect(entries.map((e) => e.memory_id ?? e.episode_id).sort()).toEqual([...bundleIds].sort());
    expect(entries.map((e) => e.rank)).toEqual(entries.map((_, i) => i));
    const keys = ['type', 'memory_id', 'kind', 'valid_from', 'valid_to', 'supersession_status', 'source_episode_ids', 'provenance_hash', 'fact_key', 'conflict_status', 'episode_id', 'source', 'event_type', 'occurred_at', 'rank', 'score'];
    for (const e of entries) expect(Object.keys(e).sort()).toEqual([...keys].sort());
    const memory = entries.find((e) => e.type === 'memory')!;
    expect(memory).toMatchObject({ supersession_status: 'active', conflict_status: 'none', episode_id: null, event_type: null });
    expect(memory.provenance_hash).toMatch(/^[0-9a-f]{64}$/);
    const episode = entries.find((e) => e.type === 'episode')!;
    expect(episode).toMatchObject({ memory_id: null, source: 'user', event_type: 'conversation', provenance_hash: null });
    // Bundle order: the order the items are rendered in assembled_context.
    const texts = entries.map((e) => (e.type === 'memory' ? res.body.facts.concat(res.body.procedures).find((m: { id: string }) => m.id === e.memory_id).content : null));
    const positions = texts.filter((x): x is string => x !== null).map((c) => res.body.assembled_context.indexOf(c.slice(0, 20)));
    expect(positions.every((pos) => pos >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    // Stored with its entries packed (migration 0024): the keys once, then one row of values per
    // entry, which is what GET rebuilt above, and what the signature was computed over.
    const [{ body }] = await t.ds.query('SELECT body FROM receipts WHERE id = $1', [res.body.receipt_id]);
    const stored = JSON.parse(body);
    expect(stored.selected_entries.columns).toEqual(keys);
    expect(stored.selected_entries.rows).toEqual(entries.map((e) => keys.map((k) => e[k])));
    expect(body.length).toBeLessThan(JSON.stringify(receipt).length);
    expect((await request(t.http).get(`/v1/receipts/${res.body.receipt_id}/verify`).expect(200)).body).toMatchObject({ valid: true, reason: 'ok' });
  });

  it('writes a receipt for a handoff with the hash of its notes', async () => {
    await request(t.http).post('/v1/episodes').send({ subject_id: 'ada', session_id: 's-9', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My card was charged twice' }] } }).expect(201);
    const res = await request(t.http).post('/v1/handoff').send({ subject_id: 'ada', session_id: 's-9', emit_receipt: true, caller_type: 'human_agent' }).expect(200);
    expect(res.body.receipt_emitted).toBe(true);
    const receipt = (await request(t.http).get(`/v1/receipts/${res.body.receipt_id}`).expect(200)).body;
    expect(receipt.output.context_hash).toBe(sha256(res.body.handoff_notes));
    expect(receipt.request).toMatchObject({ endpoint: 'handoff', session_id: 's-9', caller_type: 'human_agent', reason: 'escalation' });
    expect(receipt.selected_entries.map((e: { memory_id: string | null }) => e.memory_id).filter(Boolean)).toEqual(res.body.provenance.fact_ids);
  });

  it('lists receipts newest first with an opaque cursor, filtered by subject and time', async () => {
    await seed(t, 'bob');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await request(t.http).post('/v1/context').send({ subject_id: 'bob', task: `task ${i}`, emit_receipt: true }).expect(200)).body.receipt_id);
    }
    const first = (await request(t.http).get('/v1/receipts?subject_id=bob&limit=2').expect(200)).body;
    expect(first.receipts.map((r: { receipt_id: string }) => r.receipt_id)).toEqual([made[2], made[1]]);
    expect(typeof first.next_cursor).toBe('string');
    const second = (await request(t.http).get(`/v1/receipts?subject_id=bob&limit=2&cursor=${first.next_cursor}`).expect(200)).body;
    expect(second).toMatchObject({ next_cursor: null });
    expect(second.receipts.map((r: { receipt_id: string }) => r.receipt_id)).toEqual([made[0]]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await request(t.http).get(`/v1/receipts?subject_id=bob&since=${future}`).expect(200)).body).toEqual({ receipts: [], next_cursor: null });
    await request(t.http).get('/v1/receipts?cursor=not-a-cursor').expect(422);
    await request(t.http).get('/v1/receipts?limit=201').expect(422);
    await request(t.http).get('/v1/receipts/01ARZ3NDEKTSV4RRFFQ69G5FAV').expect(404);
  });

  it('cuts a page of large receipts at its byte budget (stored text, not the compressed size) and pages on', async () => {
    const template = (await request(t.http).get('/v1/receipts?subject_id=bob&limit=1').expect(200)).body.receipts[0] as ReceiptBody;
    const entries = Array.from({ length: 100 }, (_, i) => ({ ...template.selected_entries[i % template.selected_entries.length], rank: i }));
    // 150 receipts of ~20 KB stored text each (~3 MB): past one page's 2 MB budget.
    const ids = Array.from({ length: 150 }, (_, i) => `01JF${String(i).padStart(22, '0')}`);
    for (const id of ids) {
      const body = { ...template, receipt_id: id, subject_id: 'big', selected_entries: entries };
      await t.ds.query(`INSERT INTO receipts (id, subject_id, mode, body, created_at) VALUES ($1, 'big', 'retrieval', $2, now())`, [id, storedText(body)]);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(t.http).get(`/v1/receipts?subject_id=big&limit=200${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      expect(res.text.length).toBeLessThan(5 * 1024 * 1024);
      seen.push(...res.body.receipts.map((r: { receipt_id: string }) => r.receipt_id));
      expect(res.body.receipts[0].selected_entries).toHaveLength(100);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual([...ids].reverse());
  });

  it('refuses to change a stored receipt at the database (immutable), and deletes receipts with their subject', async () => {
    const [{ id }] = await t.ds.query(`SELECT id FROM receipts WHERE subject_id = 'bob' LIMIT 1`);
    await expect(t.ds.query(`UPDATE receipts SET body = '{}'::jsonb WHERE id = $1`, [id])).rejects.toThrow(/immutable/);
    await request(t.http).delete('/v1/subjects/bob').expect(200);
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM receipts WHERE subject_id = 'bob'`))[0].n).toBe(0);
  });

  it('fails open: a receipt that cannot be written leaves the bundle answered, receipt_emitted false, counted as failed', async () => {
    const failed = async () => Number(/memory_receipts_total\{outcome="failed"\} (\d+)/.exec((await request(t.http).get('/metrics').expect(200)).text)?.[1] ?? 0);
    const before = await failed();
    const plain = await request(t.http).post('/v1/context').send({ subject_id: 'ada', task: 'where does Ada live' }).expect(200);
    // Every new row now breaks a constraint: the receipt's INSERT fails inside the request.
    await t.ds.query('ALTER TABLE receipts ADD CONSTRAINT receipts_refuse_all CHECK (id IS NULL) NOT VALID');
    try {
      const res = await request(t.http).post('/v1/context').send({ subject_id: 'ada', task: 'where does Ada live', emit_receipt: true }).expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({ ...plain.body, receipt_id: null, receipt_emitted: false });
      expect(Object.keys(res.body).slice(-2)).toEqual(['receipt_id', 'receipt_emitted']);
      expect(await failed()).toBe(before + 1);
    } finally {
      await t.ds.query('ALTER TABLE receipts DROP CONSTRAINT receipts_refuse_all');
    }
    const written = await request(t.http).post('/v1/context').send({ subject_id: 'ada', task: 'where does Ada live', emit_receipt: true }).expect(200);
    expect(written.body).toEqual({ ...plain.body, receipt_id: expect.stringMatching(ULID), receipt_emitted: true });
    expect((await request(t.http).get(`/v1/receipts/${written.body.receipt_id}`).expect(200)).body.output.context_hash).toBe(sha256(plain.body.assembled_context));
  });

  it('verifies a receipt, detects a tampered copy and an unknown algorithm', async () => {
    const id = (await request(t.http).post('/v1/context').send({ subject_id: 'ada', task: 'renew prescription', emit_receipt: true }).expect(200)).body.receipt_id;
    expect((await request(t.http).get(`/v1/receipts/${id}/verify`).expect(200)).body).toEqual({ valid: true, key_id: 'k1', algorithm: 'hmac-sha256-canonical-v1', reason: 'ok' });
    // A tampered copy (the task rewritten) stored beside it, as an attacker with SQL access could.
    const forged = '01ARZ3NDEKTSV4RRFFQ69G5FAA';
    await t.ds.query(`INSERT INTO receipts (id, subject_id, mode, body) SELECT $2, subject_id, mode, jsonb_set(body::jsonb, '{task}', '"something else"') FROM receipts WHERE id = $1`, [id, forged]);
    expect((await request(t.http).get(`/v1/receipts/${forged}/verify`).expect(200)).body).toEqual({ valid: false, key_id: 'k1', algorithm: 'hmac-sha256-canonical-v1', reason: 'signature_mismatch' });
    const odd = '01ARZ3NDEKTSV4RRFFQ69G5FAB';
    await t.ds.query(`INSERT INTO receipts (id, subject_id, mode, body) SELECT $2, subject_id, mode, jsonb_set(body::jsonb, '{receipt_signature_algorithm}', '"md5"') FROM receipts WHERE id = $1`, [id, odd]);
    expect((await request(t.http).get(`/v1/receipts/${odd}/verify`).expect(200)).body).toMatchObject({ valid: null, reason: 'unsupported_algorithm' });
  });
});

describe('receipt settings and key rotation', () => {
  it('RECEIPTS=always writes receipts unasked, off never; rotated-out keys give key_unavailable; unsigned receipts no_signature', async () => {
    // The commit that does not wait for its flush (RECEIPT_ASYNC_COMMIT=true) writes the same
    // receipt, and relaxes synchronous_commit for that statement only.
    let t = await createTestApp({ SERVICE_RECEIPTS: 'always', SERVICE_RECEIPT_ASYNC_COMMIT: 'true', ...KEYS });
    try {
      await seed(t, 'cy');
      const signed = (await request(t.http).post('/v1/context').send({ subject_id: 'cy', task: 'hello' }).expect(200)).body;
      expect(signed.receipt_emitted).toBe(true);
      await t.close();

      // k2 signs now; k1 stays listed, so the old receipt still verifies.
      t = await createTestApp({ SERVICE_RECEIPTS: 'off', SERVICE_RECEIPT_SIGNING_KEYS: KEYS.SERVICE_RECEIPT_SIGNING_KEYS, SERVICE_RECEIPT_SIGNING_KEY_ID: 'k2' }, { reset: false });
      expect((await request(t.http).get(`/v1/receipts/${signed.receipt_id}/verify`).expect(200)).body.reason).toBe('ok');
      const off = (await request(t.http).post('/v1/context').send({ subject_id: 'cy', task: 'hello', emit_receipt: true }).expect(200)).body;
      expect(off).toMatchObject({ receipt_id: null, receipt_emitted: false });
      await t.close();

      // k1 removed: its receipts cannot be checked any more.
      t = await createTestApp({ SERVICE_RECEIPT_SIGNING_KEYS: 'k2=second-secret-of-enough-length' }, { reset: false });
      expect((await request(t.http).get(`/v1/receipts/${signed.receipt_id}/verify`).expect(200)).body).toEqual({ valid: null, key_id: 'k1', algorithm: 'hmac-sha256-canonical-v1', reason: 'key_unavailable' });
      await t.close();

      t = await createTestApp({}, { reset: false });
      const unsigned = (await request(t.http).post('/v1/context').send({ subject_id: 'cy', task: 'hello', emit_receipt: true }).expect(200)).body;
      const body = (await request(t.http).get(`/v1/receipts/${unsigned.receipt_id}`).expect(200)).body;
      expect(body).toMatchObject({ receipt_signature: null, receipt_signature_key_id: null, receipt_signature_algorithm: null });
      expect((await request(t.http).get(`/v1/receipts/${unsigned.receipt_id}/verify`).expect(200)).body).toEqual({ valid: null, key_id: null, algorithm: null, reason: 'no_signature' });
    } finally {
      await t.close();
    }
  });

  it('keeps key material out of responses and refuses bad key settings at boot', async () => {
    await expect(createTestApp({ SERVICE_RECEIPT_SIGNING_KEYS: 'k1=short' })).rejects.toThrow(/at least 16 characters/);
    await expect(createTestApp({ SERVICE_RECEIPT_SIGNING_KEYS: KEYS.SERVICE_RECEIPT_SIGNING_KEYS })).rejects.toThrow(/RECEIPT_SIGNING_KEY_ID/);
    const t = await createTestApp(KEYS, { reset: false });
    try {
      const [{ id }] = await t.ds.query('SELECT id FROM receipts LIMIT 1');
      for (const path of [`/v1/receipts/${id}`, `/v1/receipts/${id}/verify`, '/v1/receipts']) {
        const text = (await request(t.http).get(path).expect(200)).text;
        expect(text).not.toContain('first-secret');
        expect(text).not.toContain('second-secret');
      }
    } finally {
      await t.close();
    }
  });
});

describe('receipts are tenant-scoped', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it("answers 404 for another tenant's receipt and lists only the caller's", async () => {
    await request(t.http).post('/v1/episodes').set('X-Tenant-ID', 'acme').send({ subject_id: 'u', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'I like tea' }] } }).expect(201);
    const mine = (await request(t.http).post('/v1/context').set('X-Tenant-ID', 'acme').send({ subject_id: 'u', task: 'drinks', emit_receipt: true }).expect(200)).body;
    const body = (await request(t.http).get(`/v1/receipts/${mine.receipt_id}`).set('X-Tenant-ID', 'acme').expect(200)).body;
    expect(body.tenant_id).toBe('acme');
    await request(t.http).get(`/v1/receipts/${mine.receipt_id}`).set('X-Tenant-ID', 'globex').expect(404);
    await request(t.http).get(`/v1/receipts/${mine.receipt_id}/verify`).set('X-Tenant-ID', 'globex').expect(404);
    expect((await request(t.http).get('/v1/receipts').set('X-Tenant-ID', 'globex').expect(200)).body.receipts).toEqual([]);
    expect((await request(t.http).get('/v1/receipts').set('X-Tenant-ID', 'acme').expect(200)).body.receipts).toHaveLength(1);
  });
});
