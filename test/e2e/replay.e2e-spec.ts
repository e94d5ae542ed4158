import { createHash } from 'node:crypto';
import request from 'supertest';
import { createTestApp, ingestText, TestApp } from '../app-factory';

/**
 * Replay (shared/contract/governance.md section 1): POST /v1/receipts/{id}/replay under the
 * receipt's frozen policy, a new as_of_replay receipt, the structural diff, the three refusals;
 * and `as_of: "original"` reproducing the original context hash after the data moved on.
 */
const KEYS = { SERVICE_RECEIPT_SIGNING_KEYS: 'k1=first-secret-of-enough-length', SERVICE_RECEIPT_SIGNING_KEY_ID: 'k1' };
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const POLICY = (rule: string) => `version: 1
mode: enforce
rules:
  - id: ${rule}
    deny_labels: [pii]
    unless_caller_types: [clinician]
`;
type Entry = { type: string; memory_id: string | null; episode_id: string | null };
type Mem = { id: string; content: string; kind: string };
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('replay of a context receipt', () => {
  let t: TestApp;
  const subject = 'replay-user';
  const task = 'how should we contact the user';
  let original: { receipt_id: string; assembled_context: string; facts: Mem[] };
  let originalBody: Record<string, unknown>;
  let emailPref: Mem;

  const replay = (id: string, body: object = {}) => request(t.http).post(`/v1/receipts/${id}/replay`).send(body);
  const compile = () => request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);

  beforeAll(async () => {
    t = await createTestApp(KEYS);
    await request(t.http).put('/admin/policy').send({ yaml: POLICY('pii-for-clinicians') }).expect(200);
    await ingestText(t, subject, 'I prefer email.');
    await ingestText(t, subject, 'My name is Ada and I live in Lisbon.');
    emailPref = (await compile()).body.memories.find((m: Mem) => m.content === 'I prefer email.' && m.kind === 'profile_fact');
    await ingestText(t, subject, 'I am allergic to penicillin.');
    await pause();
    original = (await request(t.http).post('/v1/context').send({ subject_id: subject, task, emit_receipt: true, caller_id: 'agent-7', caller_type: 'support_bot' }).expect(200)).body;
    originalBody = (await request(t.http).get(`/v1/receipts/${original.receipt_id}`).expect(200)).body;
    await pause();
    // The data moves on: a later ingest and compile supersede the preference and compile the
    // allergy, a label now denies a fact the original showed, and the tenant's policy changes.
    await ingestText(t, subject, 'Actually I prefer phone calls now.');
    await compile();
    await request(t.http).patch(`/v1/memories/${emailPref.id}/labels`).send({ sensitivity_labels: ['pii'] }).expect(200);
    const name = original.facts.find((m) => m.content.includes('Ada'))!;
    await request(t.http).patch(`/v1/memories/${name.id}/labels`).send({ sensitivity_labels: ['pii'] }).expect(200);
    await request(t.http).put('/admin/policy').send({ yaml: POLICY('pii-for-nobody').replace('[clinician]', '[nobody]') }).expect(200);
  });
  afterAll(() => t.close());

  it('as_of "original" reproduces the original context hash byte for byte', async () => {
    expect(original.facts.map((m) => m.id)).toContain(emailPref.id);
    const now = await request(t.http).post('/v1/context').send({ subject_id: subject, task, caller_type: 'support_bot' }).expect(200);
    expect(now.body.assembled_context).not.toBe(original.assembled_context);

    const res = await replay(original.receipt_id, { as_of: 'original' }).expect(200);
    expect(res.body).toMatchObject({ original_receipt_id: original.receipt_id, as_of: originalBody.as_of });
    expect(res.body.diff.context_hash).toEqual({ original: sha256(original.assembled_context), replay: sha256(original.assembled_context), changed: false });
    expect(res.body.diff.selected_entries).toMatchObject({ added: [], removed: [], common: (originalBody.selected_entries as Entry[]).length });
    expect(res.body.diff.filters_applied).toEqual({ added: [], removed: [] });

    const copy = (await request(t.http).get(`/v1/receipts/${res.body.replay_receipt_id}`).expect(200)).body;
    expect(copy).toMatchObject({
      mode: 'as_of_replay',
      parent_receipt_id: original.receipt_id,
      subject_id: subject,
      task,
      as_of: originalBody.as_of,
      output: originalBody.output,
      selected_entries: originalBody.selected_entries,
      policy_snapshot: { bundle_hash: (originalBody.policy_snapshot as { bundle_hash: string }).bundle_hash },
      request: originalBody.request,
    });
    expect((await request(t.http).get(`/v1/receipts/${copy.receipt_id}/verify`).expect(200)).body).toMatchObject({ valid: true });
    // The original never changes.
    expect((await request(t.http).get(`/v1/receipts/${original.receipt_id}`).expect(200)).body).toEqual(originalBody);
  });

  it('as_of "now" (the default) replays against today\'s memories under the frozen policy and says what changed', async () => {
    const res = await replay(original.receipt_id).expect(200);
    const diff = res.body.diff;
    expect(diff.context_hash.changed).toBe(true);
    expect(diff.context_hash.original).toBe(sha256(original.assembled_context));
    // The superseded preference left the bundle, the new one came in.
    expect(diff.selected_entries.removed.map((e: Entry) => e.memory_id)).toContain(emailPref.id);
    expect(diff.selected_entries.added.some((e: Entry) => e.type === 'memory')).toBe(true);
    // Under the frozen policy (pii for clinicians only) the labelled name is denied to support_bot;
    // under today's bundle the rule id would be pii-for-nobody.
    expect(diff.filters_applied.added.map((f: { rule_id: string }) => f.rule_id)).toContain('pii-for-clinicians');
    expect(diff.filters_applied.added.map((f: { rule_id: string }) => f.rule_id)).not.toContain('pii-for-nobody');
    expect(diff).toMatchObject({ as_of_applied: true, note: null });
  });

  it('as_of an ISO time reads the data as it stood then', async () => {
    const at = (originalBody.as_of as string);
    const res = await replay(original.receipt_id, { as_of: at }).expect(200);
    expect(res.body.diff.context_hash.changed).toBe(false);
    const future = await replay(original.receipt_id, { as_of: new Date(Date.now() + 60_000).toISOString() }).expect(422);
    expect(future.body.error.details[0].loc).toEqual(['body', 'as_of']);
    await replay(original.receipt_id, { as_of: 'yesterday' }).expect(422);
  });

  it('refuses to replay a replay, and answers 404 for an unknown receipt', async () => {
    const res = await replay(original.receipt_id, { as_of: 'original' }).expect(200);
    const nested = await replay(res.body.replay_receipt_id).expect(422);
    expect(nested.body.error.code).toBe('unreplayable.nested_replay');
    await replay('01ARZ3NDEKTSV4RRFFQ69G5FAV').expect(404);
  });

  it('refuses a receipt without a policy snapshot, or with one that does not hold', async () => {
    const plant = async (id: string, snapshot: unknown) => {
      const body = { ...originalBody, receipt_id: id, policy_snapshot: snapshot };
      if (snapshot === undefined) delete (body as Record<string, unknown>).policy_snapshot;
      await t.ds.query(`INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body) VALUES ($1, NULL, $2, 'retrieval', NULL, $3::jsonb)`, [id, subject, JSON.stringify(body)]);
    };
    await plant('01ARZ3NDEKTSV4RRFFQ69G5FA1', undefined);
    expect((await replay('01ARZ3NDEKTSV4RRFFQ69G5FA1').expect(422)).body.error.code).toBe('unreplayable.missing_policy_snapshot');
    await plant('01ARZ3NDEKTSV4RRFFQ69G5FA2', { bundle_hash: sha256('version: 1\n'), bundle_yaml: 'version: 2\n', captured_at: originalBody.created_at });
    expect((await replay('01ARZ3NDEKTSV4RRFFQ69G5FA2').expect(422)).body.error.code).toBe('unreplayable.invalid_snapshot');
    await plant('01ARZ3NDEKTSV4RRFFQ69G5FA3', { bundle_hash: sha256('mode: [oops\n'), bundle_yaml: 'mode: [oops\n', captured_at: originalBody.created_at });
    expect((await replay('01ARZ3NDEKTSV4RRFFQ69G5FA3').expect(422)).body.error.code).toBe('unreplayable.invalid_snapshot');
  });
});

describe('replay of a handoff receipt, and tenancy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
    const episode = { subject_id: 'h', session_id: 's-1', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My order never arrived.' }] } };
    await request(t.http).post('/v1/episodes').set('X-Tenant-ID', 'acme').send(episode).expect(201);
  });
  afterAll(() => t.close());

  it('replays a handoff against the data of now and says that it cannot read an earlier instant', async () => {
    const pack = (await request(t.http).post('/v1/handoff').set('X-Tenant-ID', 'acme').send({ subject_id: 'h', session_id: 's-1', emit_receipt: true }).expect(200)).body;
    const now = await request(t.http).post(`/v1/receipts/${pack.receipt_id}/replay`).set('X-Tenant-ID', 'acme').send({}).expect(200);
    expect(now.body.diff).toMatchObject({ as_of_applied: true, selected_entries: { removed: [] } });
    expect(now.body.diff.note).toMatch(/handoff/);
    const copy = (await request(t.http).get(`/v1/receipts/${now.body.replay_receipt_id}`).set('X-Tenant-ID', 'acme').expect(200)).body;
    expect(copy).toMatchObject({ mode: 'as_of_replay', parent_receipt_id: pack.receipt_id, request: { endpoint: 'handoff', session_id: 's-1' } });
    const original = await request(t.http).post(`/v1/receipts/${pack.receipt_id}/replay`).set('X-Tenant-ID', 'acme').send({ as_of: 'original' }).expect(200);
    expect(original.body.diff.as_of_applied).toBe(false);
  });

  it("answers 404 for another tenant's receipt", async () => {
    const bundle = (await request(t.http).post('/v1/context').set('X-Tenant-ID', 'acme').send({ subject_id: 'h', task: 'order', emit_receipt: true }).expect(200)).body;
    await request(t.http).post(`/v1/receipts/${bundle.receipt_id}/replay`).set('X-Tenant-ID', 'globex').send({}).expect(404);
    await request(t.http).post(`/v1/receipts/${bundle.receipt_id}/replay`).set('X-Tenant-ID', 'acme').send({ as_of: 'original' }).expect(200);
  });
});
