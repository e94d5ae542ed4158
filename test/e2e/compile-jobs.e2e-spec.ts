import { SchedulerRegistry } from '@nestjs/schedule';
import { operatorScope } from 'src/common/db/tenant-scope';
import request from 'supertest';
import { resetOrphanedJobs } from 'src/cli/jobs.command';
import { CompileJobsRepository } from 'src/modules/memories/compile-jobs.repository';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { tenantVisibleJobError } from 'src/modules/memories/dto/compile.dto';
import { MEMORY_COMPILER } from 'src/modules/memories/memory-compiler';
import type { MemoryCompiler } from 'src/compiler/compiler.types';
import { createTestApp, ingestText, TestApp } from '../app-factory';


const submit = (t: TestApp, subject: string) => request(t.http).post('/v1/memories/compile').send({ subject_id: subject, async: true });
const status = (t: TestApp, id: string) => request(t.http).get(`/v1/memories/compile/${id}`);
const worker = (t: TestApp) => t.app.get(CompileJobsWorker);

/** A job row in a given state, `age` minutes old (created, started and finished then). */
async function insertJob(t: TestApp, state: string, ageMinutes: number): Promise<string> {
  const [row] = await t.ds.query(
    `INSERT INTO compile_jobs (subject_id, status, created_at, started_at, completed_at, updated_at)
     SELECT 'seeded', s, at, CASE WHEN s <> 'pending' THEN at END, CASE WHEN s IN ('completed', 'failed') THEN at END, at
     FROM (SELECT $1::varchar AS s, now() - make_interval(mins => $2::int) AS at) v
     RETURNING id`,
    [state, ageMinutes],
  );
  return row.id;
}

async function jobRow(t: TestApp, id: string) {
  const rows = await t.ds.query(`SELECT status, started_at, attempts FROM compile_jobs WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

describe('asynchronous compile jobs', () => {
  let t: TestApp;
  let firstJob: string;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('accepts async: true with 202 and a pending job, compiling nothing until a worker runs it', async () => {
    await ingestText(t, 'async-1', 'My name is Juno Marsh.');
    const res = await submit(t, 'async-1').expect(202);
    firstJob = res.body.job_id;
    expect(res.body).toEqual({ job_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'pending', subject_id: 'async-1' });
    const pending = await status(t, res.body.job_id).expect(200);
    expect(pending.body).toEqual({ job_id: res.body.job_id, status: 'pending', subject_id: 'async-1', created_at: expect.any(String), started_at: null, completed_at: null });
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'async-1'`);
    expect(n).toBe(0);
  });

  it('completes pending jobs in runOnce, oldest first, with memories_created and the full memory records', async () => {
    const { body: second } = await submit(t, 'async-1').expect(202);
    expect(await worker(t).runOnce()).toBe(2);
    const res = await status(t, firstJob).expect(200);
    expect(res.body).toMatchObject({ status: 'completed', subject_id: 'async-1', started_at: expect.any(String), completed_at: expect.any(String) });
    expect(res.body).not.toHaveProperty('error');
    expect(Number.isInteger(res.body.memories_created)).toBe(true);
    expect(res.body.memories).toHaveLength(res.body.memories_created);
    expect(res.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Juno Marsh.');
    expect(Object.keys(res.body.memories[0])).toEqual(expect.arrayContaining(['id', 'kind', 'content', 'valid_to', 'source_episode_ids']));
    // The second job of the subject found nothing new: completed, with an explicit zero.
    expect((await status(t, second.job_id).expect(200)).body).toMatchObject({ status: 'completed', memories_created: 0, memories: [] });
    expect(await worker(t).runOnce()).toBe(0);
  });

  it('answers 404 not_found for any id that names no job, UUID-shaped or not (client libraries probe such ids)', async () => {
    for (const id of ['job-does-not-exist', 'not-a-uuid', '12345', '00000000-0000-4000-8000-000000000000', `${firstJob}x`, 'x'.repeat(300)]) {
      const res = await status(t, encodeURIComponent(id)).expect(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    }
  });

  it('marks a job failed with its error and leaves the episodes uncompiled when the compiler throws', async () => {
    const episodeId = await ingestText(t, 'async-fail', 'My name is Juno Marsh.');
    const compiler = t.app.get<MemoryCompiler>(MEMORY_COMPILER);
    const spy = jest.spyOn(compiler, 'compile').mockRejectedValueOnce(new Error('compiler exploded'));
    const { body } = await submit(t, 'async-fail').expect(202);
    try {
      await worker(t).runOnce();
    } finally {
      spy.mockRestore();
    }
    const res = await status(t, body.job_id).expect(200);
    expect(res.body).toMatchObject({ status: 'failed', error: expect.stringContaining(`request id job:${body.job_id}`), completed_at: expect.any(String) });
    expect(res.body).not.toHaveProperty('memories_created');
    const [episode] = await t.ds.query(`SELECT last_compiled_at FROM episodes WHERE id = $1`, [episodeId]);
    expect(episode.last_compiled_at).toBeNull();
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'async-fail'`);
    expect(n).toBe(0);
    // A retry compiles the episodes the failed job left.
    const retry = await request(t.http).post('/v1/memories/compile').send({ subject_id: 'async-fail' }).expect(200);
    expect(retry.body.memories_created).toBeGreaterThan(0);
  });

  it('puts jobs running for more than 30 minutes back to pending with started_at cleared, and leaves younger ones', async () => {
    const orphan = await insertJob(t, 'running', 31);
    const young = await insertJob(t, 'running', 10);
    const reset = await worker(t).resetOrphaned();
    expect(reset.map((j) => j.id)).toEqual([orphan]);
    expect(await jobRow(t, orphan)).toMatchObject({ status: 'pending', started_at: null });
    expect(await jobRow(t, young)).toMatchObject({ status: 'running' });
    await worker(t).runOnce();
    expect((await jobRow(t, orphan)).status).toBe('completed');
    await t.ds.query(`DELETE FROM compile_jobs WHERE id = $1`, [young]);
  });

  it('resets orphans from the operator command with --older-than-minutes, reporting each job', async () => {
    const job = await insertJob(t, 'running', 10);
    const lines: string[] = [];
    expect(await resetOrphanedJobs(t.ds, 30, 3, (l) => lines.push(l))).toBe(0);
    expect(await resetOrphanedJobs(t.ds, 5, 3, (l) => lines.push(l))).toBe(1);
    expect(lines.join('\n')).toContain(`reset ${job}`);
    expect(await jobRow(t, job)).toMatchObject({ status: 'pending', started_at: null });
    await t.ds.query(`DELETE FROM compile_jobs WHERE id = $1`, [job]);
  });

  it('leaves a job running past 30 minutes alone while its worker renews the lease', async () => {
    const live = await insertJob(t, 'running', 45);
    await t.ds.query(`UPDATE compile_jobs SET attempts = 1 WHERE id = $1`, [live]);
    const [job] = await t.ds.query(`SELECT id, attempts FROM compile_jobs WHERE id = $1`, [live]);
    expect(await t.app.get(CompileJobsRepository).renewLease(t.ds.manager, operatorScope(), job)).toBe(true);
    expect(await worker(t).resetOrphaned()).toEqual([]);
    expect(await jobRow(t, live)).toMatchObject({ status: 'running' });
    // Once the lease lapses (the worker died), the contract's reset applies.
    await t.ds.query(`UPDATE compile_jobs SET updated_at = now() - interval '3 minutes' WHERE id = $1`, [live]);
    expect((await worker(t).resetOrphaned()).map((j) => j.id)).toEqual([live]);
    expect(await jobRow(t, live)).toMatchObject({ status: 'pending', started_at: null });
    await t.ds.query(`DELETE FROM compile_jobs WHERE id = $1`, [live]);
  });

  it('fails a job whose worker stopped on every attempt (poison), keeps the reason, and requeues it on request', async () => {
    await ingestText(t, 'poison', 'My name is Juno Marsh.');
    const poison = await insertJob(t, 'running', 45);
    await t.ds.query(`UPDATE compile_jobs SET subject_id = 'poison', attempts = 3 WHERE id = $1`, [poison]);
    const [reset] = await worker(t).resetOrphaned();
    expect(reset).toMatchObject({ id: poison, status: 'failed' });
    // The tenant reads a generic message; the reason stays for the operator (/admin/jobs).
    const res = await status(t, poison).expect(200);
    expect(res.body).toMatchObject({ status: 'failed', error: tenantVisibleJobError(poison) });
    const listed = await request(t.http).get('/admin/jobs?status=failed&subject_id=poison').expect(200);
    expect(listed.body.jobs).toEqual([expect.objectContaining({ job_id: poison, error: expect.stringContaining('stopped before it finished (attempt 3 of 3)') })]);
    // Not claimed again by itself.
    expect(await worker(t).runOnce()).toBe(0);
    const requeued = await t.app.get(CompileJobsRepository).requeueFailed(t.ds.manager, operatorScope(), [poison]);
    expect(requeued).toEqual([expect.objectContaining({ id: poison, status: 'pending', attempts: 0 })]);
    expect(await worker(t).runOnce()).toBe(1);
    expect((await status(t, poison).expect(200)).body).toMatchObject({ status: 'completed', memories_created: expect.any(Number) });
  });

  it('starts neither the job loop nor its maintenance tasks while workers are disabled', async () => {
    expect(t.config.workersEnabled).toBe(false);
    expect(worker(t).isRunning).toBe(false);
  });

  it('deletes completed and failed jobs older than the retention and keeps newer and unfinished ones', async () => {
    const hours = t.config.compileJobRetentionHours;
    expect(hours).toBe(168);
    const oldDone = await insertJob(t, 'completed', (hours + 1) * 60);
    const oldFailed = await insertJob(t, 'failed', (hours + 1) * 60);
    const recent = await insertJob(t, 'completed', (hours - 1) * 60);
    const oldPending = await insertJob(t, 'pending', (hours + 100) * 60);
    expect(await worker(t).deleteExpired()).toBe(2);
    expect(await jobRow(t, oldDone)).toBeNull();
    expect(await jobRow(t, oldFailed)).toBeNull();
    expect(await jobRow(t, recent)).not.toBeNull();
    expect(await jobRow(t, oldPending)).not.toBeNull();
    await t.ds.query(`DELETE FROM compile_jobs WHERE id = ANY($1::uuid[])`, [[recent, oldPending]]);
  });
});

describe('compile job retention 0', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_COMPILE_JOB_RETENTION_HOURS: '0' });
  });
  afterAll(() => t.close());

  it('keeps finished jobs of any age', async () => {
    const old = await insertJob(t, 'completed', 60 * 24 * 365);
    expect(await worker(t).deleteExpired()).toBe(0);
    expect(await jobRow(t, old)).not.toBeNull();
  });
});

describe('a pending compile job across a restart', () => {
  it('survives the app closing and completes in a new app', async () => {
    const first = await createTestApp();
    let jobId: string;
    try {
      await ingestText(first, 'restart', 'My name is Juno Marsh.');
      jobId = (await submit(first, 'restart').expect(202)).body.job_id;
    } finally {
      await first.close();
    }
    const second = await createTestApp({}, { reset: false });
    try {
      expect((await status(second, jobId).expect(200)).body.status).toBe('pending');
      expect(await worker(second).runOnce()).toBe(1);
      const res = await status(second, jobId).expect(200);
      expect(res.body.status).toBe('completed');
      expect(res.body.memories_created).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });
});

/** Polls a job until it completes or about five seconds pass; returns its last status. */
async function waitForJob(t: TestApp, jobId: string): Promise<string> {
  let state = 'pending';
  for (let i = 0; i < 200 && state !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 25));
    state = (await status(t, jobId).expect(200)).body.status;
  }
  return state;
}

describe('the compile worker loop (WORKERS_ENABLED=true)', () => {
  it('runs submitted jobs in the background and stops cleanly on shutdown', async () => {
    const t = await createTestApp({ SERVICE_WORKERS_ENABLED: 'true', SERVICE_WORKER_POLL_MS: '20' });
    try {
      await ingestText(t, 'loop', 'My name is Juno Marsh.');
      const { body } = await submit(t, 'loop').expect(202);
      expect(await waitForJob(t, body.job_id)).toBe('completed');
    } finally {
      await t.close();
    }
  });
});

describe('background work in the app timer registry (@nestjs/schedule)', () => {
  it('holds every sleeping loop of a worker process under its name, and none after shutdown', async () => {
    const t = await createTestApp({ SERVICE_WORKERS_ENABLED: 'true', SERVICE_WORKER_POLL_MS: '600000', SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    const registry = t.app.get(SchedulerRegistry);
    const expected = ['compile job worker', 'reset orphaned compile jobs', 'delete expired compile jobs', 'webhook delivery', 'webhook retention prune', 'rate-limit cleanup', 'health mark sweep'];
    try {
      for (let i = 0; i < 100 && !expected.every((name) => registry.doesExist('timeout', name)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(registry.getTimeouts()).toEqual(expect.arrayContaining(expected));
    } finally {
      await t.close();
    }
    expect(registry.getTimeouts()).toEqual([]);
  });
});

describe('a job submitted to a process whose worker is idle', () => {
  it('starts at once instead of at the next poll', async () => {
    // A poll interval far beyond the test's wait: only the submit's wake-up can run the job.
    const t = await createTestApp({ SERVICE_WORKERS_ENABLED: 'true', SERVICE_WORKER_POLL_MS: '600000' });
    try {
      await new Promise((r) => setTimeout(r, 50)); // the worker's first round has found nothing
      await ingestText(t, 'wake', 'My name is Juno Marsh.');
      const { body } = await submit(t, 'wake').expect(202);
      expect(await waitForJob(t, body.job_id)).toBe('completed');
    } finally {
      await t.close();
    }
  });
});
