import request from 'supertest';
import { createTestApp, TestApp } from '../app-factory';

const ep = (subject_id: string, content: string, over: Record<string, unknown> = {}) => ({
  subject_id,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content }] },
  ...over,
});

describe('subjects, timeline and deletion', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  });
  afterAll(() => t.close());

  it('lists subjects ordered by id with counts, hiding snapshot subjects, with limit/offset and total', async () => {
    for (const s of ['b-sub', 'a-sub', 'c-sub', '_snapshot/x/v1']) {
      await request(t.http).post('/v1/episodes').send(ep(s, `My name is ${s}`)).expect(201);
    }
    await request(t.http).post('/v1/memories/compile').send({ subject_id: 'a-sub' }).expect(200);
    const all = await request(t.http).get('/v1/subjects').expect(200);
    expect(all.body.total).toBe(3);
    expect(all.body.subjects.map((s: { subject_id: string }) => s.subject_id)).toEqual(['a-sub', 'b-sub', 'c-sub']);
    expect(all.body.subjects[0]).toEqual({ subject_id: 'a-sub', episode_count: 1, memory_count: expect.any(Number) });
    expect(all.body.subjects[0].memory_count).toBeGreaterThan(0);
    const page = await request(t.http).get('/v1/subjects?limit=1&offset=1').expect(200);
    expect(page.body).toEqual({ subjects: [{ subject_id: 'b-sub', episode_count: 1, memory_count: 0 }], total: 3 });
    const past = await request(t.http).get('/v1/subjects?offset=10').expect(200);
    expect(past.body).toEqual({ subjects: [], total: 3 });
  });

  it('rejects listing limits outside 1-200 and negative offsets with 422', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'offset=-1']) {
      const res = await request(t.http).get(`/v1/subjects?${q}`).expect(422);
      expect(res.body.error.details[0].loc[0]).toBe('query');
    }
  });

  it('returns the timeline in time order with memories of every status', async () => {
    await request(t.http).post('/v1/episodes').send(ep('tl', 'I am on the Pro plan.')).expect(201);
    await request(t.http).post('/v1/episodes').send(ep('tl', 'We upgraded: I am on the Enterprise plan now.')).expect(201);
    await request(t.http).post('/v1/memories/compile').send({ subject_id: 'tl' }).expect(200);
    const res = await request(t.http).get('/v1/timeline?subject_id=tl').expect(200);
    expect(res.body.subject_id).toBe('tl');
    expect(res.body.episodes).toHaveLength(2);
    expect(res.body.episodes[0].payload.messages[0].content).toContain('Pro plan');
    const times = res.body.memories.map((m: { created_at: string }) => m.created_at);
    expect([...times].sort()).toEqual(times);
    expect(res.body.memories.length).toBeGreaterThan(0);
  });

  it('rejects an empty or 257-character subject_id on the timeline with 422', async () => {
    await request(t.http).get('/v1/timeline').expect(422);
    await request(t.http).get('/v1/timeline?subject_id=').expect(422);
    const res = await request(t.http).get(`/v1/timeline?subject_id=${'x'.repeat(257)}`).expect(422);
    expect(res.body.error.details[0].loc).toEqual(['query', 'subject_id']);
  });

  it('deletes everything stored for a subject, counts it, and emits subject.deleted', async () => {
    const sid = 'org/team/user-1';
    await request(t.http).post('/v1/episodes').send(ep(sid, 'My name is Ada', { session_id: 's1' })).expect(201);
    await request(t.http).post('/v1/episodes').send(ep(sid, 'I like tea', { session_id: 's1' })).expect(201);
    await request(t.http).post('/v1/memories/compile').send({ subject_id: sid }).expect(200);
    await request(t.http).post('/v1/memories/compile').send({ subject_id: sid, async: true }).expect(202);
    await request(t.http).post('/v1/resolutions').send({ subject_id: sid, session_id: 's1', status: 'open' }).expect(200);
    await request(t.http).get(`/v1/subjects/${encodeURIComponent(sid)}/health`).expect(200);
    const memories = (await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = $1`, [sid]))[0].n;
    expect(memories).toBeGreaterThan(0);

    const res = await request(t.http).delete(`/v1/subjects/${encodeURIComponent(sid)}`).expect(200);
    expect(res.body).toMatchObject({ subject_id: sid, episodes_deleted: 2, memories_deleted: memories, resolutions_deleted: 1, receipts_deleted: 0, health_state_deleted: 1, health_history_deleted: 1 });
    for (const table of ['episodes', 'memories', 'compile_jobs', 'resolutions', 'health_cache', 'health_history']) {
      const left = await t.ds.query(`SELECT count(*)::int AS n FROM ${table} WHERE subject_id = $1`, [sid]);
      expect({ table, n: left[0].n }).toEqual({ table, n: 0 });
    }
    const events = await t.ds.query(`SELECT payload FROM webhook_events WHERE event = 'subject.deleted'`);
    expect(events.map((e: { payload: { data: unknown } }) => e.payload.data)).toContainEqual({ subject_id: sid, episodes_deleted: 2, memories_deleted: memories, tenant_id: null });
  });

  it('answers 200 with zero counts for a subject that has no data', async () => {
    const res = await request(t.http).delete('/v1/subjects/never-seen').expect(200);
    expect(res.body).toMatchObject({ subject_id: 'never-seen', episodes_deleted: 0, memories_deleted: 0, receipts_deleted: 0, events_deleted: 0 });
  });
});

describe('subjects under tenant isolation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it('lists, reads and deletes only the requesting tenant’s subjects; NULL-tenant legacy rows stay hidden', async () => {
    await request(t.http).post('/v1/episodes').set('X-Tenant-ID', 'A').send(ep('shared-id', 'tenant A data')).expect(201);
    await request(t.http).post('/v1/episodes').set('X-Tenant-ID', 'B').send(ep('shared-id', 'tenant B data')).expect(201);
    await request(t.http).post('/v1/episodes').set('X-Tenant-ID', 'B').send(ep('b-only', 'tenant B only')).expect(201);
    await t.ds.query(`INSERT INTO episodes (subject_id, source, type, payload, content_text) VALUES ('legacy', 'user', 'note', '{}', '')`);

    const a = await request(t.http).get('/v1/subjects').set('X-Tenant-ID', 'A').expect(200);
    expect(a.body).toEqual({ subjects: [{ subject_id: 'shared-id', episode_count: 1, memory_count: 0 }], total: 1 });

    const tl = await request(t.http).get('/v1/timeline?subject_id=shared-id').set('X-Tenant-ID', 'A').expect(200);
    expect(tl.body.episodes.map((e: { payload: { messages: { content: string }[] } }) => e.payload.messages[0].content)).toEqual(['tenant A data']);

    const delB = await request(t.http).delete('/v1/subjects/b-only').set('X-Tenant-ID', 'A').expect(200);
    expect(delB.body.episodes_deleted).toBe(0);
    const delShared = await request(t.http).delete('/v1/subjects/shared-id').set('X-Tenant-ID', 'A').expect(200);
    expect(delShared.body.episodes_deleted).toBe(1);
    const left = await t.ds.query(`SELECT tenant_id, subject_id FROM episodes ORDER BY subject_id, tenant_id`);
    expect(left).toEqual([
      { tenant_id: 'B', subject_id: 'b-only' },
      { tenant_id: null, subject_id: 'legacy' },
      { tenant_id: 'B', subject_id: 'shared-id' },
    ]);
  });
});
