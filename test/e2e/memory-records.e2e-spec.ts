import request from 'supertest';
import { createTestApp, ingestText, TestApp } from '../app-factory';

interface Memory {
  id: string;
  subject_id: string;
  kind: string;
  content: string;
  summary: string;
  status: string;
  origin: string;
  valid_from: string;
  valid_to: string | null;
  source_episode_ids: string[];
  metadata: Record<string, unknown>;
  superseded_by?: string;
}

describe('one memory at a time: remember, read, correct, forget', () => {
  let t: TestApp;
  const remember = (body: Record<string, unknown>) => request(t.http).post('/v1/memories').send({ kind: 'profile_fact', ...body });
  const get = (id: string) => request(t.http).get(`/v1/memories/${id}`);
  const correct = (id: string, body: Record<string, unknown>) => request(t.http).patch(`/v1/memories/${id}`).send(body);
  const forget = (id: string, query = '') => request(t.http).delete(`/v1/memories/${id}${query}`);
  const search = (subject: string) => request(t.http).get('/v1/memories/search').query({ subject_id: subject }).expect(200);
  const events = async (name: string): Promise<Record<string, unknown>[]> =>
    (await t.ds.query(`SELECT payload FROM webhook_events WHERE payload->>'event' = $1 ORDER BY created_at`, [name])).map((r: { payload: { data: Record<string, unknown> } }) => r.payload.data);

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  });
  afterAll(() => t.close());

  it('remembers a memory with API provenance and reads it back by id', async () => {
    const created = (await remember({ subject_id: 'u-read', content: 'My name is Juno Marsh.', metadata: { from: 'crm' }, confidence: 0.8 }).expect(201)).body as Memory;
    expect(created).toMatchObject({ subject_id: 'u-read', kind: 'profile_fact', content: 'My name is Juno Marsh.', summary: 'name: Juno Marsh', status: 'active', origin: 'api', confidence: 0.8, valid_to: null, source_episode_ids: [], metadata: { from: 'crm' } });
    expect((await get(created.id).expect(200)).body).toEqual(created);
    expect((await search('u-read')).body.memories.map((m: Memory) => m.id)).toEqual([created.id]);
    const [event] = await events('memory.created');
    expect(event).toEqual({ memory_id: created.id, subject_id: 'u-read', kind: 'profile_fact', status: 'active', supersedes: [], tenant_id: null });
  });

  it('supersedes the active memory it restates, compiled or remembered, keeping the old one as history', async () => {
    await ingestText(t, 'u-plan', 'I am on the Pro plan.');
    const compiled = (await request(t.http).post('/v1/memories/compile').send({ subject_id: 'u-plan' }).expect(200)).body.memories.find((m: Memory) => m.kind === 'profile_fact') as Memory;
    const restated = (await remember({ subject_id: 'u-plan', content: 'I am on the Team plan.' }).expect(201)).body as Memory;
    expect(restated.metadata).toEqual({ supersedes: [compiled.id] });
    const old = (await get(compiled.id).expect(200)).body as Memory;
    expect(old).toMatchObject({ status: 'superseded', content: compiled.content, valid_to: restated.valid_from });
    const [{ superseded_by }] = await t.ds.query(`SELECT superseded_by FROM memories WHERE id = $1`, [compiled.id]);
    expect(superseded_by).toBe(restated.id);
    expect(old.superseded_by).toBe(restated.id);
    expect(restated).not.toHaveProperty('superseded_by');
    const facts = (await search('u-plan')).body.memories.filter((m: Memory) => m.kind === 'profile_fact');
    expect(facts.map((m: Memory) => m.content)).toEqual(['I am on the Team plan.']);
  });

  it('stores a backdated memory that a newer one restates as already superseded', async () => {
    const current = (await remember({ subject_id: 'u-back', content: 'I live in Tromso.', valid_from: '2026-06-01T00:00:00Z' }).expect(201)).body as Memory;
    const older = (await remember({ subject_id: 'u-back', content: 'I live in Oslo.', valid_from: '2026-01-01T00:00:00Z' }).expect(201)).body as Memory;
    expect(older).toMatchObject({ status: 'superseded', valid_to: current.valid_from });
    expect((await get(current.id).expect(200)).body.status).toBe('active');
  });

  it('returns the original memory for a repeated idempotency key and stores one row', async () => {
    const body = { subject_id: 'u-idem', content: 'Prefers email over phone.', idempotency_key: 'sync-1' };
    const first = (await remember(body).expect(201)).body as Memory;
    const again = (await remember({ ...body, content: 'something else' }).expect(201)).body as Memory;
    expect(again).toEqual(first);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'u-idem'`);
    expect(n).toBe(1);
  });

  it('refuses bad input with 422 and stores nothing', async () => {
    for (const body of [
      { subject_id: 'u-bad', content: '' },
      { subject_id: 'u-bad', content: 'x', kind: 'raw_episode' },
      { subject_id: 'u-bad', content: 'x', confidence: 1.5 },
      { subject_id: 'u-bad', content: 'x', valid_from: 'yesterday' },
      { subject_id: '', content: 'x' },
      { subject_id: 'u-bad', content: 'x', metadata: 'nope' },
    ]) {
      const res = await remember(body).expect(422);
      expect(res.body.error.code).toBe('validation_error');
    }
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'u-bad'`);
    expect(n).toBe(0);
  });

  it('corrects a memory into a new version; the old keeps its content and gets valid_to and superseded', async () => {
    const v1 = (await remember({ subject_id: 'u-fix', content: 'My email is juno@old.example.' }).expect(201)).body as Memory;
    const v2 = (await correct(v1.id, { content: 'My email is juno@new.example.', metadata: { ticket: 'T-9' } }).expect(200)).body as Memory;
    expect(v2.id).not.toBe(v1.id);
    expect(v2).toMatchObject({ kind: 'profile_fact', content: 'My email is juno@new.example.', status: 'active', origin: 'api', metadata: { ticket: 'T-9', supersedes: [v1.id] } });
    expect((await get(v1.id).expect(200)).body).toMatchObject({ content: 'My email is juno@old.example.', status: 'superseded', valid_to: v2.valid_from });
    expect((await search('u-fix')).body.memories.map((m: Memory) => m.id)).toEqual([v2.id]);
    const conflict = await correct(v1.id, { content: 'again' }).expect(409);
    expect(conflict.body.error).toMatchObject({ code: 'conflict', details: { status: 'superseded', superseded_by: v2.id } });
    expect((await events('memory.updated')).find((e) => e.memory_id === v2.id)).toEqual({ memory_id: v2.id, subject_id: 'u-fix', kind: 'profile_fact', status: 'active', supersedes: [v1.id], tenant_id: null });
  });

  it('refuses an empty correction and one dated before the corrected version', async () => {
    const m = (await remember({ subject_id: 'u-fix2', content: 'Uses Linux.', valid_from: '2026-05-01T00:00:00Z' }).expect(201)).body as Memory;
    expect((await correct(m.id, {}).expect(422)).body.error.details[0].loc).toEqual(['body']);
    expect((await correct(m.id, { content: 'Uses macOS.', valid_from: '2026-04-01T00:00:00Z' }).expect(422)).body.error.details[0].loc).toEqual(['body', 'valid_from']);
    expect((await get(m.id).expect(200)).body.status).toBe('active');
  });

  it('forgets a memory and its earlier versions: content erased, tombstones keep id, kind and times', async () => {
    const v1 = (await remember({ subject_id: 'u-forget', content: 'My phone is +47 555 0101.', metadata: { secret: 'x' } }).expect(201)).body as Memory;
    const v2 = (await correct(v1.id, { content: 'My phone is +47 555 0202.' }).expect(200)).body as Memory;
    const res = await forget(v2.id).expect(200);
    expect(res.body).toEqual({ id: v2.id, subject_id: 'u-forget', status: 'tombstoned', memories_forgotten: 2 });
    for (const m of [v1, v2]) {
      const tomb = (await get(m.id).expect(200)).body as Memory;
      expect(tomb).toMatchObject({ id: m.id, kind: 'profile_fact', status: 'tombstoned', content: '', summary: '', metadata: {}, created_at: (m as unknown as { created_at: string }).created_at });
      expect(tomb.valid_to).not.toBeNull();
    }
    const stored = await t.ds.query(`SELECT content, summary, metadata, embedding, attribute_key FROM memories WHERE subject_id = 'u-forget'`);
    expect(JSON.stringify(stored)).not.toMatch(/555|secret/);
    expect((await search('u-forget')).body.memories).toEqual([]);
    expect((await forget(v2.id).expect(200)).body.memories_forgotten).toBe(0);
    const deleted = await events('memory.deleted');
    expect(deleted).toEqual([{ memory_id: v2.id, subject_id: 'u-forget', kind: 'profile_fact', status: 'tombstoned', memories_forgotten: 2, tenant_id: null }]);
    expect(JSON.stringify(await t.ds.query(`SELECT payload FROM webhook_events`))).not.toMatch(/555 0/);
  });

  it('stores sensitivity labels given at remember time, normalised, and refuses bad ones with 422 naming the label', async () => {
    const m = (await remember({ subject_id: 'u-labels', content: 'I take insulin daily.', sensitivity_labels: [' Health ', 'health', 'PII.medical'] }).expect(201)).body as Memory & { sensitivity_labels: string[] };
    expect(m.sensitivity_labels).toEqual(['health', 'pii.medical']);
    expect((await request(t.http).get(`/v1/memories/${m.id}`).expect(200)).body.sensitivity_labels).toEqual(['health', 'pii.medical']);
    const bad = await remember({ subject_id: 'u-labels', content: 'Something else.', sensitivity_labels: ['ok', 'no spaces allowed'] }).expect(422);
    expect(bad.body.error.details[0].loc).toEqual(['body', 'sensitivity_labels', 1]);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'u-labels'`);
    expect(n).toBe(1);
  });

  it('with ?hard=true removes the rows, after which the memory is unknown', async () => {
    const m = (await remember({ subject_id: 'u-hard', content: 'Allergic to peanuts.' }).expect(201)).body as Memory;
    expect((await forget(m.id, '?hard=true').expect(200)).body).toEqual({ id: m.id, subject_id: 'u-hard', status: 'deleted', memories_forgotten: 1 });
    expect((await get(m.id).expect(404)).body.error.code).toBe('not_found');
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'u-hard'`);
    expect(n).toBe(0);
  });

  it('answers 404 not_found for unknown and non-UUID ids on every verb', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect((await get(id).expect(404)).body.error.code).toBe('not_found');
      await correct(id, { content: 'x' }).expect(404);
      await forget(id).expect(404);
    }
  });

  it('serialises with a compile of the same subject: one active plan fact, the remembered one', async () => {
    await ingestText(t, 'u-race', 'I am on the Starter plan.');
    const [compiled, remembered] = await Promise.all([
      request(t.http).post('/v1/memories/compile').send({ subject_id: 'u-race' }).expect(200),
      remember({ subject_id: 'u-race', content: 'I am on the Scale plan.' }).expect(201),
    ]);
    const plan = await t.ds.query(`SELECT id, status, superseded_by FROM memories WHERE subject_id = 'u-race' AND attribute_key = 'profile:plan' ORDER BY created_at`);
    expect(plan.filter((m: { status: string }) => m.status === 'active').map((m: { id: string }) => m.id)).toEqual([remembered.body.id]);
    const compiledFact = compiled.body.memories.find((m: Memory) => m.kind === 'profile_fact') as Memory;
    expect(plan.find((m: { id: string }) => m.id === compiledFact.id)).toMatchObject({ status: 'superseded', superseded_by: remembered.body.id });
  });

  it('keeps a fact compiled after a newer remembered one as history behind it', async () => {
    await ingestText(t, 'u-after', 'I am on the Starter plan.');
    const remembered = (await remember({ subject_id: 'u-after', content: 'I am on the Scale plan.' }).expect(201)).body as Memory;
    const compiled = (await request(t.http).post('/v1/memories/compile').send({ subject_id: 'u-after' }).expect(200)).body.memories.find((m: Memory) => m.kind === 'profile_fact') as Memory;
    const [row] = await t.ds.query(`SELECT status, superseded_by FROM memories WHERE id = $1`, [compiled.id]);
    expect(row).toEqual({ status: 'superseded', superseded_by: remembered.id });
  });

  it('lets one of two concurrent corrections of the same version win; the other gets 409', async () => {
    const m = (await remember({ subject_id: 'u-twice', content: 'Works at Acme.' }).expect(201)).body as Memory;
    const results = await Promise.all([correct(m.id, { content: 'Works at Globex.' }), correct(m.id, { content: 'Works at Initech.' })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const active = await t.ds.query(`SELECT content FROM memories WHERE subject_id = 'u-twice' AND status = 'active'`);
    expect(active).toHaveLength(1);
  });
});

describe('one memory at a time across tenants', () => {
  let t: TestApp;
  const as = (tenant: string) => ({
    remember: (content: string) => request(t.http).post('/v1/memories').set('X-Tenant-ID', tenant).send({ subject_id: 'shared', kind: 'procedure', content, idempotency_key: 'same-key' }),
    get: (id: string) => request(t.http).get(`/v1/memories/${id}`).set('X-Tenant-ID', tenant),
    correct: (id: string) => request(t.http).patch(`/v1/memories/${id}`).set('X-Tenant-ID', tenant).send({ content: 'hijacked' }),
    forget: (id: string) => request(t.http).delete(`/v1/memories/${id}?hard=true`).set('X-Tenant-ID', tenant),
  });

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it('keeps each tenant’s memories and idempotency keys to itself: another tenant’s id is 404 on every verb', async () => {
    const a = (await as('tenant-a').remember('Restart the hub.').expect(201)).body as Memory;
    const b = (await as('tenant-b').remember('Call support.').expect(201)).body as Memory;
    expect(b.id).not.toBe(a.id);
    await as('tenant-b').get(a.id).expect(404);
    await as('tenant-b').correct(a.id).expect(404);
    await as('tenant-b').forget(a.id).expect(404);
    expect((await as('tenant-a').get(a.id).expect(200)).body).toMatchObject({ content: 'Restart the hub.', status: 'active' });
    await request(t.http).get(`/v1/memories/${a.id}`).expect(400);
  });
});

describe('hard deletion of one memory is an operator decision', () => {
  const MASTER = 'records-master-key';
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: MASTER });
  });
  afterAll(() => t.close());

  it('refuses ?hard=true from a client key (403, nothing removed), tombstones without it, and lets an operator key remove the row', async () => {
    const key = async (role: string) => (await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role }).expect(201)).body.key as string;
    const client = await key('client');
    const operator = await key('operator');
    const made = await request(t.http).post('/v1/memories').set('X-API-Key', client).send({ subject_id: 'u-roles', kind: 'profile_fact', content: 'I live in Oslo.' }).expect(201);
    const refused = await request(t.http).delete(`/v1/memories/${made.body.id}?hard=true`).set('X-API-Key', client).expect(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect((await t.ds.query(`SELECT status, content FROM memories WHERE id = $1`, [made.body.id]))[0]).toEqual({ status: 'active', content: 'I live in Oslo.' });
    // The operator role is for /admin and /ops; the master key holds both roles and may remove rows.
    expect((await request(t.http).delete(`/v1/memories/${made.body.id}?hard=true`).set('X-API-Key', operator)).status).toBe(403);
    expect((await request(t.http).delete(`/v1/memories/${made.body.id}`).set('X-API-Key', client).expect(200)).body.status).toBe('tombstoned');
    expect((await request(t.http).delete(`/v1/memories/${made.body.id}?hard=true`).set('X-API-Key', MASTER).expect(200)).body.status).toBe('deleted');
    expect(await t.ds.query(`SELECT id FROM memories WHERE id = $1`, [made.body.id])).toEqual([]);
  });
});
