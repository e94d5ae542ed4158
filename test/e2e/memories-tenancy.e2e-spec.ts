import request from 'supertest';
import { TenantScope } from 'src/common/db/tenant-scope';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { createTestApp, TestApp } from '../app-factory';

const SUBJECT = 'shared-subject';

describe('memories with REQUIRE_TENANT: two tenants and NULL-tenant legacy rows', () => {
  let t: TestApp;
  const as = (tenant: string) => ({
    ingest: (text: string) =>
      request(t.http)
        .post('/v1/episodes')
        .set('X-Tenant-ID', tenant)
        .send({ subject_id: SUBJECT, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: text }] } })
        .expect(201),
    compile: (body: Record<string, unknown> = {}) => request(t.http).post('/v1/memories/compile').set('X-Tenant-ID', tenant).send({ subject_id: SUBJECT, ...body }),
    search: (query: Record<string, string> = {}) => request(t.http).get('/v1/memories/search').set('X-Tenant-ID', tenant).query({ subject_id: SUBJECT, ...query }),
    job: (id: string) => request(t.http).get(`/v1/memories/compile/${id}`).set('X-Tenant-ID', tenant),
  });
  const a = as('tenant-a');
  const b = as('tenant-b');

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
    // Legacy rows from before tenant support: visible to no tenant.
    await t.ds.query(
      `INSERT INTO episodes (subject_id, source, type, payload, content_text) VALUES ($1, 'user', 'conversation', '{"messages":[{"role":"user","content":"My name is Legacy Lee."}]}', '')`,
      [SUBJECT],
    );
    await t.ds.query(`INSERT INTO memories (subject_id, kind, content) VALUES ($1, 'profile_fact', 'My name is Legacy Lee.')`, [SUBJECT]);
    await a.ingest('My name is Ann Alpha.');
    await b.ingest('My name is Bob Beta.');
  });
  afterAll(() => t.close());

  it('requires the tenant header on every memories route', async () => {
    const res = await request(t.http).get('/v1/memories/search').query({ subject_id: SUBJECT }).expect(400);
    expect(res.body.error.code).toBe('missing_tenant');
    await request(t.http).post('/v1/memories/compile').send({ subject_id: SUBJECT }).expect(400);
  });

  it('compiles only the requesting tenant’s episodes, stamping its tenant on the memories', async () => {
    const res = await a.compile().expect(200);
    expect(res.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Ann Alpha.');
    expect(JSON.stringify(res.body)).not.toMatch(/Bob Beta|Legacy Lee/);
    const episodes = await t.ds.query(`SELECT tenant_id, last_compiled_at IS NOT NULL AS compiled FROM episodes WHERE subject_id = $1 ORDER BY tenant_id NULLS FIRST`, [SUBJECT]);
    expect(episodes).toEqual([
      { tenant_id: null, compiled: false },
      { tenant_id: 'tenant-a', compiled: true },
      { tenant_id: 'tenant-b', compiled: false },
    ]);
    const tenants = await t.ds.query(`SELECT DISTINCT tenant_id FROM memories WHERE id = ANY($1::uuid[])`, [res.body.memories.map((m: { id: string }) => m.id)]);
    expect(tenants).toEqual([{ tenant_id: 'tenant-a' }]);
  });

  it('searches only the requesting tenant’s memories, never legacy NULL-tenant rows', async () => {
    const found = (await a.search().expect(200)).body.memories.map((m: { content: string }) => m.content);
    expect(found).toContain('My name is Ann Alpha.');
    expect(found.join('\n')).not.toMatch(/Bob Beta|Legacy Lee/);
    expect((await b.search().expect(200)).body).toEqual({ memories: [] });
    expect((await b.search({ q: 'name', semantic: 'true' }).expect(200)).body).toEqual({ memories: [] });
    const semantic = (await a.search({ q: 'my name', semantic: 'true' }).expect(200)).body.memories.map((m: { content: string }) => m.content);
    expect(semantic.join('\n')).not.toMatch(/Bob Beta|Legacy Lee/);
  });

  it('answers 404 not_found for another tenant’s job and runs the job under its own tenant', async () => {
    const { body } = await b.compile({ async: true }).expect(202);
    const foreign = await a.job(body.job_id).expect(404);
    expect(foreign.body.error.code).toBe('not_found');
    await t.app.get(CompileJobsWorker).runOnce();
    const own = await b.job(body.job_id).expect(200);
    expect(own.body.status).toBe('completed');
    expect(own.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Bob Beta.');
    expect(JSON.stringify(own.body)).not.toMatch(/Ann Alpha|Legacy Lee/);
    await a.job(body.job_id).expect(404);
    const [{ tenant_id }] = await t.ds.query(`SELECT tenant_id FROM compile_jobs WHERE id = $1`, [body.job_id]);
    expect(tenant_id).toBe('tenant-b');
  });

  it('deletes only the given tenant’s memories and jobs of a subject', async () => {
    const deleted = await t.ds.transaction((em) => t.app.get(MemoriesService).deleteSubject(em, TenantScope.of('tenant-b'), SUBJECT));
    expect(deleted.memories).toBeGreaterThan(0);
    const rows = await t.ds.query(`SELECT DISTINCT tenant_id FROM memories WHERE subject_id = $1 ORDER BY tenant_id NULLS FIRST`, [SUBJECT]);
    expect(rows).toEqual([{ tenant_id: null }, { tenant_id: 'tenant-a' }]);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM compile_jobs WHERE tenant_id = 'tenant-b'`);
    expect(n).toBe(0);
  });
});
