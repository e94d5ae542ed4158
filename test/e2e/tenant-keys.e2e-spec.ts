import request from 'supertest';
import { createTestApp, TestApp } from '../app-factory';

const MASTER = 'tenant-keys-master';

/**
 * Two client keys bound to tenants A and B. Whatever B's key sends — A's subject ids, A's job id,
 * A's tenant header, through REST and MCP — it reads, changes and deletes nothing of A, and every
 * answer about A's subject is the answer about a subject that never existed (B learns nothing).
 */
describe('two tenant-bound client keys', () => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;
  let jobA: string;
  const SUBJECT = 'shared/juno';
  const NEVER = 'never/existed';

  const normalise = (body: unknown, subject: string): string =>
    JSON.stringify(body)
      .split(subject)
      .join('<subject>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>');

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: MASTER, SERVICE_REQUIRE_TENANT: 'true' });
    const mk = async (tenant: string) => (await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role: 'client', tenant_id: tenant }).expect(201)).body.key as string;
    keyA = await mk('tenant-a');
    keyB = await mk('tenant-b');
    const a = (r: request.Test) => r.set('Authorization', `Bearer ${keyA}`);
    await a(request(t.http).post('/v1/episodes')).send({ subject_id: SUBJECT, source: 'user', type: 'conversation', session_id: 's1', payload: { messages: [{ role: 'user', content: 'My name is Juno and I prefer email.' }] } }).expect(201);
    await a(request(t.http).post('/v1/memories/compile')).send({ subject_id: SUBJECT }).expect(200);
    await a(request(t.http).post('/v1/resolutions')).send({ subject_id: SUBJECT, session_id: 's1', status: 'open' }).expect(200);
    jobA = (await a(request(t.http).post('/v1/memories/compile')).send({ subject_id: SUBJECT, async: true }).expect(202)).body.job_id;
  });
  afterAll(() => t.close());

  const countA = async (): Promise<number> =>
    Number((await t.ds.query(`SELECT (SELECT count(*) FROM episodes WHERE tenant_id = 'tenant-a') + (SELECT count(*) FROM memories WHERE tenant_id = 'tenant-a') + (SELECT count(*) FROM resolutions WHERE tenant_id = 'tenant-a') AS n`))[0].n);

  it('answers B about A\'s subject exactly as about a subject that never existed, on every read route', async () => {
    const before = await countA();
    const reads: ((s: string) => request.Test)[] = [
      (s) => request(t.http).get(`/v1/timeline?subject_id=${encodeURIComponent(s)}`),
      (s) => request(t.http).get(`/v1/memories/search?subject_id=${encodeURIComponent(s)}&q=email`),
      (s) => request(t.http).get(`/v1/memories/search?subject_id=${encodeURIComponent(s)}`),
      (s) => request(t.http).get(`/v1/subjects/${encodeURIComponent(s)}/health`),
      (s) => request(t.http).get(`/v1/subjects/${encodeURIComponent(s)}/sla`),
      (s) => request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(s)}`),
      (s) => request(t.http).post('/v1/context').send({ subject_id: s, task: 'email preferences' }),
      (s) => request(t.http).post('/v1/handoff').send({ subject_id: s, session_id: 's1' }),
    ];
    for (const read of reads) {
      const onA = await read(SUBJECT).set('X-API-Key', keyB);
      const onNothing = await read(NEVER).set('X-API-Key', keyB);
      expect(onA.status).toBe(onNothing.status);
      expect(normalise(onA.body, SUBJECT)).toBe(normalise(onNothing.body, NEVER));
      expect(JSON.stringify(onA.body)).not.toMatch(/Juno|email over|prefer email/);
    }
    const subjects = await request(t.http).get('/v1/subjects').set('X-API-Key', keyB).expect(200);
    expect(JSON.stringify(subjects.body)).not.toContain(SUBJECT);
    expect((await request(t.http).get(`/v1/memories/compile/${jobA}`).set('X-API-Key', keyB)).status).toBe(404);
    expect(await countA()).toBe(before);
  });

  it('cannot write into or delete from A, by header or by subject', async () => {
    const before = await countA();
    expect((await request(t.http).post('/v1/episodes').set('X-API-Key', keyB).set('X-Tenant-ID', 'tenant-a').send({ subject_id: SUBJECT, source: 'u', type: 'note', payload: {} })).status).toBe(403);
    expect((await request(t.http).delete(`/v1/subjects/${encodeURIComponent(SUBJECT)}`).set('X-API-Key', keyB).set('X-Tenant-ID', 'tenant-a')).status).toBe(403);
    await request(t.http).delete(`/v1/subjects/${encodeURIComponent(SUBJECT)}`).set('X-API-Key', keyB);
    await request(t.http).post('/v1/resolutions').set('X-API-Key', keyB).send({ subject_id: SUBJECT, session_id: 's1', status: 'resolved' }).expect(200);
    expect(await countA()).toBe(before);
    expect((await t.ds.query(`SELECT status FROM resolutions WHERE tenant_id = 'tenant-a'`))[0].status).toBe('open');
    for (const path of ['/admin/export/' + encodeURIComponent(SUBJECT) + '?tenant_id=tenant-a', '/admin/jobs?tenant_id=tenant-a', '/admin/webhooks/stats?tenant_id=tenant-a']) {
      expect((await request(t.http).get(path).set('X-API-Key', keyB)).status).toBe(403);
    }
  });

  it('sees nothing of A through MCP tools either', async () => {
    const call = (name: string, args: Record<string, unknown>, key: string, tenant?: string) => {
      const r = request(t.http).post('/mcp').set('Authorization', `Bearer ${key}`).set('Accept', 'application/json, text/event-stream');
      if (tenant) r.set('X-Tenant-ID', tenant);
      return r.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    };
    for (const [name, args] of [
      ['get_timeline', { subject_id: SUBJECT }],
      ['search_memories', { subject_id: SUBJECT, query: 'email' }],
      ['get_context', { subject_id: SUBJECT, task: 'email' }],
    ] as const) {
      const onA = await call(name, args, keyB);
      const onNothing = await call(name, 'subject_id' in args ? { ...args, subject_id: NEVER } : args, keyB);
      expect(JSON.stringify(onA.body)).not.toMatch(/Juno|prefer email/);
      expect(normalise(onA.body, SUBJECT)).toBe(normalise(onNothing.body, NEVER));
    }
    expect((await call('get_timeline', { subject_id: SUBJECT }, keyB, 'tenant-a')).status).toBe(403);
    const before = await countA();
    await call('delete_subject', { subject_id: SUBJECT }, keyB);
    expect(await countA()).toBe(before);
    // A's own key still sees its data through MCP.
    expect(JSON.stringify((await call('get_timeline', { subject_id: SUBJECT }, keyA)).body)).toContain('Juno');
  });
});
