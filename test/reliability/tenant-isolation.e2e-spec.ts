import request from 'supertest';
import { operatorScope } from 'src/common/db/tenant-scope';
import { SnapshotsService } from 'src/modules/snapshots/snapshots.service';
import { SupportService } from 'src/modules/support/support.service';
import { createTestApp, TestApp } from '../app-factory';
import { storedRows } from './stored-rows';

/**
 * Tenant isolation sweep (REQUIRE_TENANT on). Tenant A owns every kind of record under a subject
 * id that tenant B also uses; a NULL-tenant legacy row sits under it too. For every /v1 route,
 * B's answer about that subject must equal B's answer about a subject that never existed (same
 * status, same body once the id and clock fields are normalised): another tenant's data looks
 * exactly like missing data. B's writes (compile, ingest with A's idempotency key, resolution
 * upsert, delete) never touch A's rows, which are compared byte for byte before and after.
 * Operator routes filter by an explicit `tenant_id` and are not restricted by the header.
 */
const A = { 'X-Tenant-ID': 'tenant-a' };
const B = { 'X-Tenant-ID': 'tenant-b' };
const S = 'shared/subject';
const MISSING = 'never/used';
const VOLATILE = new Set(['generated_at', 'exported_at', 'request_id', 'created_at', 'updated_at']);

/** The body as text with the probed id replaced by a placeholder and clock fields removed. */
function normalise(body: unknown, ids: string[]): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !VOLATILE.has(k)).map(([k, x]) => [k, strip(x)]));
    return v;
  };
  let text = JSON.stringify(strip(body));
  for (const id of ids) text = text.split(id).join('<ID>');
  return text;
}

const dumpTenant = (t: TestApp, tenant: string): Promise<string[]> =>
  storedRows(t, ['episodes', 'memories', 'resolutions', 'compile_jobs', 'snapshots', 'webhook_events', 'health_cache', 'health_history'], { tenant });

describe('tenant isolation sweep', () => {
  let t: TestApp;
  let jobId: string;
  let snapshotId: string;
  let eventId: string;
  let before: string[];
  const conv = (subject: string, text: string, extra: Record<string, unknown> = {}) => ({
    subject_id: subject,
    source: 'user',
    type: 'conversation',
    session_id: 's-1',
    payload: { messages: [{ role: 'user', content: text }] },
    ...extra,
  });

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true', SERVICE_ENABLE_SNAPSHOTS: 'true', SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SERVICE_EMBEDDING_DIMENSIONS: '64' });
    await request(t.http).post('/v1/episodes').set(A).send(conv(S, 'My name is Juno Marsh and I prefer email. Production is down, urgent!')).expect(201);
    await request(t.http)
      .post('/v1/episodes/batch')
      .set(A)
      .send({ episodes: [conv(S, 'To reset the router, hold the button for 10 seconds.'), conv('live_a', 'cleanup candidate')] })
      .expect(201);
    await request(t.http).post('/v1/memories/compile').set(A).send({ subject_id: S }).expect(200);
    await request(t.http).post('/v1/resolutions').set(A).send({ subject_id: S, session_id: 's-1', status: 'open', resolution_summary: 'A only' }).expect(200);
    await request(t.http).get(`/v1/subjects/${encodeURIComponent(S)}/health`).set(A).expect(200);
    await request(t.http).post('/v1/episodes').set(A).send(conv(S, 'uncompiled one', { idempotency_key: 'idem-1' })).expect(201);
    jobId = (await request(t.http).post('/v1/memories/compile').set(A).send({ subject_id: S, async: true }).expect(202)).body.job_id;
    snapshotId = (await t.app.get(SnapshotsService).create(operatorScope('tenant-a'), S, 'snap-a')).id;
    // A dead letter of A's, and a legacy row without a tenant under the same subject id.
    [{ id: eventId }] = await t.ds.query(`SELECT id FROM webhook_events WHERE tenant_id = 'tenant-a' ORDER BY created_at LIMIT 1`);
    await t.ds.query(`UPDATE webhook_events SET status = 'dead_letter' WHERE id = $1`, [eventId]);
    await t.ds.query(
      `INSERT INTO episodes (id, tenant_id, subject_id, source, type, payload, metadata, provenance, content_text) VALUES (gen_random_uuid(), NULL, $1, 'user', 'note', '{"text":"legacy"}', '{}', '{}', 'legacy')`,
      [S],
    );
    // Ingestion recomputes health shortly after it answers; let that finish before the baseline.
    await t.app.get(SupportService).drainHealthRefresh();
    before = await dumpTenant(t, 'tenant-a');
    expect(before.filter((l) => l.startsWith('memories')).length).toBeGreaterThan(0);
  });
  afterAll(() => t?.close());

  const enc = encodeURIComponent;
  const probes: [string, (subject: string) => request.Test][] = [
    ['timeline', (s) => request(t.http).get(`/v1/timeline?subject_id=${enc(s)}`).set(B)],
    ['search (list)', (s) => request(t.http).get(`/v1/memories/search?subject_id=${enc(s)}`).set(B)],
    ['search (text)', (s) => request(t.http).get(`/v1/memories/search?subject_id=${enc(s)}&q=Juno`).set(B)],
    ['search (kind)', (s) => request(t.http).get(`/v1/memories/search?subject_id=${enc(s)}&kind=profile_fact`).set(B)],
    ['search (semantic)', (s) => request(t.http).get(`/v1/memories/search?subject_id=${enc(s)}&q=router&semantic=true`).set(B)],
    ['resolutions', (s) => request(t.http).get(`/v1/resolutions?subject_id=${enc(s)}`).set(B)],
    ['resolutions (open)', (s) => request(t.http).get(`/v1/resolutions?subject_id=${enc(s)}&status=open`).set(B)],
    ['health', (s) => request(t.http).get(`/v1/subjects/${enc(s)}/health`).set(B)],
    ['sla', (s) => request(t.http).get(`/v1/subjects/${enc(s)}/sla`).set(B)],
    ['handoff', (s) => request(t.http).post('/v1/handoff').set(B).send({ subject_id: s, session_id: 's-1' })],
    ['context', (s) => request(t.http).post('/v1/context').set(B).send({ subject_id: s, task: 'reset the device for the customer' })],
    ['export with tenant filter', (s) => request(t.http).get(`/admin/export/${enc(s)}?tenant_id=tenant-b`)],
    ['jobs with tenant filter', (s) => request(t.http).get(`/admin/jobs?tenant_id=tenant-b&subject_id=${enc(s)}`)],
  ];

  it.each(probes)("%s: another tenant's subject looks exactly like a missing one", async (_name, probe) => {
    const theirs = await probe(S);
    const missing = await probe(MISSING);
    expect(theirs.status).toBeLessThan(500);
    expect(theirs.status).toBe(missing.status);
    expect(normalise(theirs.body, [S, MISSING])).toBe(normalise(missing.body, [S, MISSING]));
    expect(JSON.stringify(theirs.body)).not.toMatch(/Juno|router|A only|legacy|snap-a/);
  });

  it("a job of another tenant is a 404 like an unknown job", async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const theirs = await request(t.http).get(`/v1/memories/compile/${jobId}`).set(B).expect(404);
    const missing = await request(t.http).get(`/v1/memories/compile/${unknown}`).set(B).expect(404);
    expect(normalise(theirs.body, [jobId, unknown])).toBe(normalise(missing.body, [jobId, unknown]));
    await request(t.http).get(`/v1/memories/compile/${jobId}`).set(A).expect(200);
  });

  it('the subject list and its total do not count the other tenant', async () => {
    const res = await request(t.http).get('/v1/subjects?limit=200').set(B).expect(200);
    expect(res.body).toEqual({ subjects: [], total: 0 });
    const mine = await request(t.http).get('/v1/subjects?limit=200').set(A).expect(200);
    expect(mine.body.subjects.map((s: { subject_id: string }) => s.subject_id)).toEqual(['live_a', S]);
  });

  it("operator filters by tenant_id hide the other tenant's jobs, events and snapshots", async () => {
    expect((await request(t.http).get('/admin/jobs?tenant_id=tenant-b').expect(200)).body.jobs).toEqual([]);
    expect((await request(t.http).get('/admin/webhooks/stats?tenant_id=tenant-b').expect(200)).body).toMatchObject({ pending: 0, delivered: 0, dead_letter: 0, total: 0 });
    expect((await request(t.http).get('/admin/snapshots?tenant_id=tenant-b').expect(200)).body.snapshots).toEqual([]);
    const byName = await request(t.http).post('/admin/snapshots/restore-by-name?tenant_id=tenant-b').send({ name: 'snap-a', target_subject_id: 'b-restored' });
    const byMissingName = await request(t.http).post('/admin/snapshots/restore-by-name?tenant_id=tenant-b').send({ name: 'no-such-snap', target_subject_id: 'b-restored' });
    expect(byName.status).toBe(404);
    expect(normalise(byName.body, ['snap-a', 'no-such-snap'])).toBe(normalise(byMissingName.body, ['snap-a', 'no-such-snap']));
    const unknown = '00000000-0000-4000-8000-000000000001';
    const byId = await request(t.http).post(`/admin/snapshots/${snapshotId}/restore?tenant_id=tenant-b`).send({ target_subject_id: 'b-restored' });
    const byMissingId = await request(t.http).post(`/admin/snapshots/${unknown}/restore?tenant_id=tenant-b`).send({ target_subject_id: 'b-restored' });
    expect(byId.status).toBe(404);
    expect(normalise(byId.body, [snapshotId, unknown])).toBe(normalise(byMissingId.body, [snapshotId, unknown]));
    expect((await request(t.http).post('/admin/webhooks/dead-letters/requeue').send({ tenant_id: 'tenant-b' }).expect(200)).body).toEqual({ requeued: 0 });
    expect((await request(t.http).post('/admin/cleanup?tenant_id=tenant-b&prefix=live_&max_age_hours=0').expect(200)).body).toEqual({ subjects_cleaned: 0 });
  });

  it('operator routes without a tenant filter are not restricted (contract) and need no tenant header', async () => {
    const doc = await request(t.http).get(`/admin/export/${enc(S)}`).expect(200);
    expect(doc.body.counts.episodes).toBeGreaterThanOrEqual(4);
    expect((await request(t.http).get(`/admin/webhooks/${eventId}`).expect(200)).body.status).toBe('dead_letter');
    expect((await request(t.http).get('/admin/jobs').expect(200)).body.jobs.map((j: { job_id: string }) => j.job_id)).toContain(jobId);
  });

  it("the other tenant's writes under the same subject id never touch A's rows", async () => {
    // Delete first: B has nothing there yet, so it is a delete of a missing subject.
    const del = await request(t.http).delete(`/v1/subjects/${enc(S)}`).set(B).expect(200);
    expect(del.body).toMatchObject({ subject_id: S, episodes_deleted: 0, memories_deleted: 0 });
    const compiled = await request(t.http).post('/v1/memories/compile').set(B).send({ subject_id: S }).expect(200);
    expect(compiled.body.memories_created).toBe(0);
    // A's idempotency key means nothing to B: a new episode of B's, not A's.
    const ep = await request(t.http).post('/v1/episodes').set(B).send(conv(S, 'B speaking', { idempotency_key: 'idem-1' })).expect(201);
    const [aEpisode] = await t.ds.query(`SELECT id FROM episodes WHERE tenant_id = 'tenant-a' AND idempotency_key = 'idem-1'`);
    expect(ep.body.id).not.toBe(aEpisode.id);
    const res = await request(t.http).post('/v1/resolutions').set(B).send({ subject_id: S, session_id: 's-1', status: 'resolved' }).expect(200);
    const [aRes] = await t.ds.query(`SELECT id FROM resolutions WHERE tenant_id = 'tenant-a'`);
    expect(res.body.id).not.toBe(aRes.id);
    const b = await request(t.http).get(`/v1/timeline?subject_id=${enc(S)}`).set(B).expect(200);
    expect(b.body.episodes.map((e: { id: string }) => e.id)).toEqual([ep.body.id]);
    const del2 = await request(t.http).delete(`/v1/subjects/${enc(S)}`).set(B).expect(200);
    expect(del2.body).toMatchObject({ subject_id: S, episodes_deleted: 1, memories_deleted: 0 });
    expect(await dumpTenant(t, 'tenant-a')).toEqual(before);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE tenant_id IS NULL AND subject_id = $1`, [S]);
    expect(n).toBe(1);
  });
});
