import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { call } from './harness/http-raw';
import { baseEnv, provisionDb, runCli, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { eventually, sleep } from './harness/settings';

/**
 * A poison compile job against the built service: every worker that runs it dies mid-job (here
 * the process is SIGKILLed while the job waits on its model server, as a compile that exhausts
 * the heap would end it). Each death leaves the job `running`; the operator's orphan reset
 * (`jobs reset-orphaned --older-than-minutes 0`, as after any crash) puts it back to pending
 * until it has been started COMPILE_JOB_MAX_ATTEMPTS times (3), then marks it `failed` with the
 * reason kept for operators.
 * A failed job is never claimed again by itself (the next start stays up); the tenant sees a
 * generic message; `jobs requeue-failed --id` runs it again. Before the attempt cap the job was
 * claimed, crashed the worker and was reset forever.
 */
describe('a poison compile job (built service)', () => {
  let db: ServiceDb;
  let svc: ServiceProcess | null = null;
  let model: Server;
  let hits = 0;
  let hit: (() => void) | null = null;
  let modelUrl = '';

  /** Resolves at the model server's next request (the worker is then inside the job). */
  const nextHit = () => new Promise<void>((res) => (hit = res));

  const llmEnv = () => baseEnv({
    ...db.env,
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_COMPILER_TYPE: 'llm',
    SERVICE_OPENAI_BASE_URL: modelUrl,
    SERVICE_OPENAI_API_KEY: 'poison-test',
    SERVICE_LLM_MAX_RETRIES: '0',
  });
  const heuristicEnv = () => baseEnv({ ...db.env, SERVICE_LOG_LEVEL: 'warn' });

  beforeAll(async () => {
    db = await provisionDb();
    // The model server never answers: the test kills the service while its worker waits on it.
    model = createServer(() => {
      hits++;
      hit?.();
    });
    await new Promise<void>((res) => model.listen(0, '127.0.0.1', res));
    modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  }, 120_000);

  afterAll(async () => {
    await svc?.stop();
    await new Promise((res) => model.close(res));
    await db?.drop();
  });

  it('reaches failed after the attempt cap, keeps the reason, shows the tenant a generic message, and runs again when requeued', async () => {
    let called = nextHit();
    svc = await startService(llmEnv());
    expect((await call(svc.base, 'POST', '/v1/episodes', { subject_id: 'poison', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My name is Juno Marsh.' }] } })).status).toBe(201);
    const accepted = await call(svc.base, 'POST', '/v1/memories/compile', { subject_id: 'poison', async: true });
    expect(accepted.status).toBe(202);
    const jobId: string = accepted.body.job_id;

    const resets: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      // The worker claims the job and calls the model; the process dies in the middle.
      await called;
      svc.kill('SIGKILL');
      expect((await svc.exited).signal).toBe('SIGKILL');
      expect(hits).toBe(attempt);
      const reset = await runCli(heuristicEnv(), ['jobs', 'reset-orphaned', '--older-than-minutes', '0']);
      expect(reset.code).toBe(0);
      resets.push(reset.out);
      if (attempt < 3) {
        called = nextHit();
        svc = await startService(llmEnv());
      }
    }
    expect(resets[0]).toMatch(/reset 1 job\(s\) to pending/);
    expect(resets[2]).toMatch(new RegExp(`failed ${jobId} .*attempts=3`));
    expect(resets[2]).toMatch(/reset 0 job\(s\) to pending/);

    // Failed is final until an operator acts: the next start claims nothing and stays up.
    svc = await startService(llmEnv());
    await sleep(1500);
    expect(hits).toBe(3);
    expect({ exit: svc.child.exitCode, signal: svc.child.signalCode }).toEqual({ exit: null, signal: null });
    const tenantView = await call(svc.base, 'GET', `/v1/memories/compile/${jobId}`);
    expect(tenantView.status).toBe(200);
    expect(tenantView.body).toMatchObject({ status: 'failed', error: expect.stringContaining(`request id job:${jobId}`) });
    expect(tenantView.body.error).not.toMatch(/worker|attempt/);
    const operatorView = await call(svc.base, 'GET', '/admin/jobs?status=failed');
    expect(operatorView.body.jobs).toEqual([expect.objectContaining({ job_id: jobId, error: expect.stringContaining('stopped before it finished (attempt 3 of 3)') })]);
    await svc.stop();

    // The operator requeues it (after fixing the cause: here, back to the heuristic compiler).
    const requeued = await runCli(heuristicEnv(), ['jobs', 'requeue-failed', '--id', jobId]);
    expect(requeued.code).toBe(0);
    expect(requeued.out).toMatch(/requeued 1 failed job\(s\)/);
    svc = await startService(heuristicEnv());
    const done = await eventually('the requeued job completes', 60_000, async () => {
      const res = await call(svc!.base, 'GET', `/v1/memories/compile/${jobId}`);
      return res.body.status === 'completed' ? res.body : null;
    });
    expect(done.memories_created).toBeGreaterThan(0);
  }, 600_000);
});
