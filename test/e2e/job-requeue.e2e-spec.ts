import request from 'supertest';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { MEMORY_COMPILER } from 'src/modules/memories/memory-compiler';
import type { MemoryCompiler } from 'src/compiler/compiler.types';
import { createTestApp, TestApp } from '../app-factory';

const MASTER = 'master-key-of-the-requeue-spec';
const operator = { 'X-API-Key': MASTER };
const acme = { 'X-API-Key': MASTER, 'X-Tenant-ID': 'acme' };

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, request_id: expect.any(String) });
}

/** A job seeded in a given state for the acme tenant (the states a worker would leave). */
async function seedJob(t: TestApp, status: string): Promise<string> {
  const [row] = await t.ds.query(
    `INSERT INTO compile_jobs (tenant_id, subject_id, status, error, attempts, started_at, completed_at)
     VALUES ('acme', 'seeded', $1::varchar, CASE WHEN $1::varchar = 'failed' THEN 'boom' END, CASE WHEN $1::varchar = 'pending' THEN 0 ELSE 1 END,
       CASE WHEN $1::varchar <> 'pending' THEN now() END, CASE WHEN $1::varchar IN ('completed', 'failed') THEN now() END)
     RETURNING id`,
    [status],
  );
  return row.id;
}

describe('POST /admin/jobs/{job_id}/requeue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: MASTER, SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it('puts a job the compiler failed back in the queue, and the next worker run compiles it', async () => {
    await request(t.http).post('/v1/episodes').set(acme).send({ subject_id: 'requeue-1', source: 'user', type: 'note', payload: { text: 'My name is Juno Marsh.' } }).expect(201);
    const compiler = t.app.get<MemoryCompiler>(MEMORY_COMPILER);
    const spy = jest.spyOn(compiler, 'compile').mockRejectedValueOnce(new Error('compiler exploded'));
    const { body: job } = await request(t.http).post('/v1/memories/compile').set(acme).send({ subject_id: 'requeue-1', async: true }).expect(202);
    try {
      await t.app.get(CompileJobsWorker).runOnce();
    } finally {
      spy.mockRestore();
    }
    const failed = await request(t.http).get(`/admin/jobs?status=failed&subject_id=requeue-1`).set(operator).expect(200);
    expect(failed.body.jobs).toEqual([expect.objectContaining({ job_id: job.job_id, status: 'failed', error: expect.any(String) })]);

    const res = await request(t.http).post(`/admin/jobs/${job.job_id}/requeue`).set(operator).expect(200);
    // The job as it now is: pending, unclaimed, its last error kept until it runs again.
    expect(res.body).toEqual({
      job_id: job.job_id,
      subject_id: 'requeue-1',
      tenant_id: 'acme',
      status: 'pending',
      memories_created: null,
      error: failed.body.jobs[0].error,
      created_at: expect.any(String),
      started_at: null,
      completed_at: null,
    });
    const [row] = await t.ds.query(`SELECT status, attempts FROM compile_jobs WHERE id = $1`, [job.job_id]);
    expect(row).toEqual({ status: 'pending', attempts: 0 });

    expect(await t.app.get(CompileJobsWorker).runOnce()).toBe(1);
    const done = await request(t.http).get(`/v1/memories/compile/${job.job_id}`).set(acme).expect(200);
    expect(done.body).toMatchObject({ status: 'completed', memories_created: expect.any(Number) });
    expect(done.body.memories_created).toBeGreaterThan(0);
  });

  it('answers 409 conflict for a job that is pending, running or completed, and changes nothing', async () => {
    for (const status of ['pending', 'running', 'completed']) {
      const id = await seedJob(t, status);
      const res = await request(t.http).post(`/admin/jobs/${id}/requeue`).set(operator);
      expectEnvelope(res, 409, 'conflict');
      expect(res.body.error.message).toContain(status);
      const [row] = await t.ds.query(`SELECT status FROM compile_jobs WHERE id = $1`, [id]);
      expect(row.status).toBe(status);
    }
  });

  it('answers 404 for an unknown job and for another tenant’s job under a tenant filter; 422 for a malformed id', async () => {
    expectEnvelope(await request(t.http).post('/admin/jobs/00000000-0000-4000-8000-000000000000/requeue').set(operator), 404, 'not_found');
    const id = await seedJob(t, 'failed');
    expectEnvelope(await request(t.http).post(`/admin/jobs/${id}/requeue?tenant_id=globex`).set(operator), 404, 'not_found');
    expect((await t.ds.query(`SELECT status FROM compile_jobs WHERE id = $1`, [id]))[0].status).toBe('failed');
    const own = await request(t.http).post(`/admin/jobs/${id}/requeue?tenant_id=acme`).set(operator).expect(200);
    expect(own.body).toMatchObject({ job_id: id, tenant_id: 'acme', status: 'pending' });
    const bad = await request(t.http).post('/admin/jobs/not-a-uuid/requeue').set(operator);
    expectEnvelope(bad, 422, 'validation_error');
    expect(bad.body.error.details[0].loc).toEqual(['path', 'job_id']);
  });

  it('is operator-only: a client key bound to the job’s own tenant gets 403, no key 401', async () => {
    const id = await seedJob(t, 'failed');
    const created = await request(t.http).post('/admin/api-keys').set(operator).send({ role: 'client', tenant_id: 'acme' }).expect(201);
    expectEnvelope(await request(t.http).post(`/admin/jobs/${id}/requeue`).set('X-API-Key', created.body.key), 403, 'forbidden');
    expectEnvelope(await request(t.http).post(`/admin/jobs/${id}/requeue`), 401, 'missing_api_key');
    expect((await t.ds.query(`SELECT status FROM compile_jobs WHERE id = $1`, [id]))[0].status).toBe('failed');
  });
});
