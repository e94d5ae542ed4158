import request from 'supertest';
import { createTestApp, ingestText, TestApp } from '../app-factory';

const POLICY = (mode: string, extra = '') => `version: 1
mode: ${mode}
${extra}rules:
  - id: medical-only-for-clinicians
    deny_labels: [health, pii.medical]
    unless_caller_types: [clinician]
`;

describe('sensitivity labels and policy bundles', () => {
  let t: TestApp;
  let allergyId: string;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    await ingestText(t, 'pat', 'I am allergic to penicillin.');
    await ingestText(t, 'pat', 'My name is Pat and I live in Porto.');
    await request(t.http).post('/v1/memories/compile').send({ subject_id: 'pat' }).expect(200);
    const found = await request(t.http).get('/v1/memories/search?subject_id=pat&q=penicillin&kind=profile_fact').expect(200);
    allergyId = found.body.memories[0].id;
    expect(found.body.memories[0].sensitivity_labels).toEqual([]);
  });
  afterAll(() => t.close());

  it('replaces labels normalised (trimmed, lowercased, de-duplicated) and refuses bad ones with 422', async () => {
    const res = await request(t.http).patch(`/v1/memories/${allergyId}/labels`).send({ sensitivity_labels: [' Health ', 'health', 'PII.medical'] }).expect(200);
    expect(res.body).toMatchObject({ id: allergyId, sensitivity_labels: ['health', 'pii.medical'] });
    const bad = await request(t.http).patch(`/v1/memories/${allergyId}/labels`).send({ sensitivity_labels: ['ok', 'no spaces'] }).expect(422);
    expect(bad.body.error.details[0].loc).toEqual(['body', 'sensitivity_labels', 1]);
    await request(t.http).patch(`/v1/memories/${allergyId}/labels`).send({ sensitivity_labels: Array.from({ length: 33 }, (_, i) => `l${i}`) }).expect(422);
    await request(t.http).patch(`/v1/memories/${allergyId}/labels`).send({ sensitivity_labels: ['x'.repeat(65)] }).expect(422);
    await request(t.http).patch('/v1/memories/00000000-0000-4000-8000-000000000000/labels').send({ sensitivity_labels: [] }).expect(404);
    const timeline = await request(t.http).get('/v1/timeline?subject_id=pat').expect(200);
    expect(timeline.body.memories.find((m: { id: string }) => m.id === allergyId).sensitivity_labels).toEqual(['health', 'pii.medical']);
  });

  it('refuses an invalid bundle with 422 naming the line, keeping the previous bundle', async () => {
    const ok = await request(t.http).put('/admin/policy').send({ yaml: POLICY('enforce') }).expect(200);
    expect(ok.body).toMatchObject({ mode: 'enforce', policy_bundle_hash: expect.stringMatching(/^[0-9a-f]{64}$/), rules: [{ id: 'medical-only-for-clinicians', deny_labels: ['health', 'pii.medical'], unless_caller_types: ['clinician'] }] });
    const bad = await request(t.http).put('/admin/policy').send({ yaml: 'version: 1\nmode: enforce\nrules:\n  - id: r1\n    deny_label: [health]\n' }).expect(422);
    expect(bad.body.error.code).toBe('invalid_policy');
    expect(bad.body.error.details.line).toBe(5);
    expect(bad.body.error.message).toContain('line 5');
    const broken = await request(t.http).put('/admin/policy').send({ yaml: 'version: 1\nmode: [oops\n' }).expect(422);
    expect(broken.body.error.details.line).toBeGreaterThan(1);
    expect((await request(t.http).get('/admin/policy').expect(200)).body.policy_bundle_hash).toBe(ok.body.policy_bundle_hash);
    const events = await t.ds.query(`SELECT payload FROM webhook_events WHERE event = 'policy.updated'`);
    expect(events).toHaveLength(1);
  });

  it('enforce mode keeps a labelled memory out for one caller type and in for another, recording each denial', async () => {
    await request(t.http).put('/admin/policy').send({ yaml: POLICY('enforce') }).expect(200);
    const bot = (await request(t.http).post('/v1/context').send({ subject_id: 'pat', task: 'what medicine is fine', caller_id: 'a1', caller_type: 'support_bot', emit_receipt: true }).expect(200)).body;
    expect(bot.provenance.fact_ids).not.toContain(allergyId);
    const receipt = (await request(t.http).get(`/v1/receipts/${bot.receipt_id}`).expect(200)).body;
    expect(receipt.policy.filters_applied).toEqual([{ rule_id: 'medical-only-for-clinicians', memory_id: allergyId, labels: ['health', 'pii.medical'], action: 'denied' }]);
    expect(receipt.policy.mode).toBe('enforce');
    expect(receipt.policy_snapshot.bundle_yaml).toBe(POLICY('enforce'));

    const doc = (await request(t.http).post('/v1/context').send({ subject_id: 'pat', task: 'what medicine is fine', caller_id: 'd1', caller_type: 'clinician', emit_receipt: true }).expect(200)).body;
    expect(doc.provenance.fact_ids).toContain(allergyId);
    const docReceipt = (await request(t.http).get(`/v1/receipts/${doc.receipt_id}`).expect(200)).body;
    expect(docReceipt.policy).toMatchObject({ filters_applied: [], filters_skipped: [{ rule_id: 'medical-only-for-clinicians', reason: 'caller_type_allowed' }] });

    const search = (await request(t.http).get('/v1/memories/search?subject_id=pat&q=penicillin&kind=profile_fact&caller_type=support_bot').expect(200)).body;
    expect(search.memories).toEqual([]);
    const searchDoc = (await request(t.http).get('/v1/memories/search?subject_id=pat&q=penicillin&kind=profile_fact&caller_type=clinician').expect(200)).body;
    expect(searchDoc.memories.map((m: { id: string }) => m.id)).toEqual([allergyId]);

    await request(t.http).post('/v1/episodes').send({ subject_id: 'pat', session_id: 's1', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'help' }] } }).expect(201);
    const handoff = (await request(t.http).post('/v1/handoff').send({ subject_id: 'pat', session_id: 's1', caller_type: 'support_bot' }).expect(200)).body;
    expect(handoff.provenance.fact_ids).not.toContain(allergyId);
    expect(handoff.key_facts.join(' ')).not.toContain('penicillin');
  });

  it('log_only mode filters nothing and lists would-be denials', async () => {
    await request(t.http).put('/admin/policy').send({ yaml: POLICY('log_only') }).expect(200);
    const bot = (await request(t.http).post('/v1/context').send({ subject_id: 'pat', task: 'what medicine is fine', caller_type: 'support_bot', emit_receipt: true }).expect(200)).body;
    expect(bot.provenance.fact_ids).toContain(allergyId);
    const receipt = (await request(t.http).get(`/v1/receipts/${bot.receipt_id}`).expect(200)).body;
    expect(receipt.policy).toMatchObject({ mode: 'log_only', filters_applied: [{ rule_id: 'medical-only-for-clinicians', memory_id: allergyId, action: 'would_deny' }] });
  });

  it('require_caller_identity answers 401 without caller_id and caller_type; the bundle can turn receipts on', async () => {
    await request(t.http).put('/admin/policy').send({ yaml: POLICY('enforce', 'require_caller_identity: true\nreceipts: always\n') }).expect(200);
    const res = await request(t.http).post('/v1/context').send({ subject_id: 'pat', task: 'x', caller_type: 'clinician' }).expect(401);
    expect(res.body.error.code).toBe('caller_identity_required');
    await request(t.http).post('/v1/handoff').send({ subject_id: 'pat', session_id: 's1' }).expect(401);
    const ok = (await request(t.http).post('/v1/context').send({ subject_id: 'pat', task: 'x', caller_id: 'd1', caller_type: 'clinician' }).expect(200)).body;
    expect(ok.receipt_emitted).toBe(true);
    expect((await request(t.http).delete('/admin/policy').expect(200)).body).toEqual({ deleted: true });
    await request(t.http).get('/admin/policy').expect(404);
    expect((await request(t.http).post('/v1/context').send({ subject_id: 'pat', task: 'x' }).expect(200)).body.receipt_emitted).toBe(false);
  });
});

describe('policy bundles are per tenant', () => {
  it("applies a tenant's bundle to that tenant only", async () => {
    const t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
    try {
      await request(t.http).put('/admin/policy?tenant_id=acme').send({ yaml: 'version: 1\nrequire_caller_identity: true\n' }).expect(200);
      const body = { subject_id: 'u', task: 'x' };
      await request(t.http).post('/v1/context').set('X-Tenant-ID', 'acme').send(body).expect(401);
      await request(t.http).post('/v1/context').set('X-Tenant-ID', 'globex').send(body).expect(200);
      await request(t.http).get('/admin/policy?tenant_id=globex').expect(404);
    } finally {
      await t.close();
    }
  });
});
