import { HttpDrainService } from 'src/common/http/http-drain.service';
import { rawRequest } from './harness/http-raw';
import { checkInvariants } from './harness/invariants';
import { Ledger } from './harness/ledger';
import { baseEnv, provisionDb, runEngine, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { rng, seed, sizes, sleep, within } from './harness/settings';
import { WebhookReceiver } from './harness/webhook-receiver';
import { clientLoop, conversation } from './harness/workload';

/**
 * SIGTERM under load (built service, this run's engine). Long requests known to be in flight
 * (a big sync compile, full batches) all get their 2xx; the process exits by itself within the
 * drain bound; the client loops saw no 5xx; the database holds no partial write
 * (checkInvariants: batches whole, compiles whole, every acknowledged write present).
 */
describe('graceful shutdown under load (SIGTERM, built service)', () => {
  let db: ServiceDb;
  const receiver = new WebhookReceiver();
  let svc: ServiceProcess | null = null;
  beforeAll(async () => {
    await receiver.start();
    db = await provisionDb(runEngine());
  });
  afterAll(async () => {
    await svc?.stop(5000);
    await db.drop();
    await receiver.stop();
  });

  it('finishes in-flight requests, exits cleanly and leaves no partial writes', async () => {
    const s = seed();
    const r = rng(s);
    const rounds = sizes.shutdownRounds();
    const ledger = new Ledger();
    const env = baseEnv({ ...db.env, SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_TIMEOUT: '2', SERVICE_LOG_LEVEL: 'info' });
    for (let round = 1; round <= rounds; round++) {
      svc = await startService(env);
      const base = svc.base;
      // A subject with many uncompiled episodes: compiling it takes a while.
      const big = `big-${round}`;
      for (let i = 0; i < 3; i++) {
        const res = await rawRequest(base, { method: 'POST', path: '/v1/episodes/batch', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ episodes: Array.from({ length: 100 }, () => conversation(r, big)) }) });
        expect(res.status).toBe(201);
      }
      let stop = false;
      const loops = Array.from({ length: 3 }, (_, i) => clientLoop({ ledger, target: { base: () => base, headers: () => ({}) }, r: rng(s + round * 10 + i), subjects: [`g${round}-${i}`], tenant: null, stop: () => stop, maxOps: 100_000 }));
      await sleep(300);
      // Known in flight at SIGTERM: the request bodies are fully written before the signal.
      const inflight = [
        rawRequest(base, { method: 'POST', path: '/v1/memories/compile', headers: { 'Content-Type': 'application/json', Connection: 'close' }, body: JSON.stringify({ subject_id: big }), timeoutMs: 60_000 }),
        ...Array.from({ length: 3 }, (_, i) =>
          rawRequest(base, {
            method: 'POST',
            path: '/v1/episodes/batch',
            headers: { 'Content-Type': 'application/json', Connection: 'close' },
            body: JSON.stringify({ episodes: Array.from({ length: 100 }, () => conversation(r, `g-batch-${round}-${i}`, { metadata: { batch: `term-${round}-${i}`, batch_size: 100 } })) }),
            timeoutMs: 60_000,
          }),
        ),
      ];
      // Long enough for the service to have taken them (connections still in the listen backlog
      // at SIGTERM are refused, like new ones); the big compile runs for seconds.
      await sleep(300);
      const termAt = Date.now();
      svc.kill('SIGTERM');
      const answers = await Promise.all(inflight);
      expect(answers.map((a) => a.status)).toEqual([200, 201, 201, 201]);
      expect(answers[0].json).toMatchObject({ subject_id: big });
      const exit = await within(svc.exited, 40_000);
      expect(exit).not.toBe('timeout');
      const exitMs = Date.now() - termAt;
      // The drain ended by itself, not by its timeout (which cuts connections): clients that keep
      // kept-alive connections busy are told to close them.
      expect(exitMs).toBeLessThan(HttpDrainService.DRAIN_TIMEOUT_MS);
      expect(exit === 'timeout' ? null : exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
      stop = true;
      await Promise.all(loops);
      svc = null;
      ledger.settle();
      const fivexx = ledger.ops.filter((o) => (o.status ?? 0) >= 500);
      expect(fivexx.map((o) => `${o.kind} ${o.status} ${o.error}`)).toEqual([]);
      const problems = await checkInvariants(db.query, ledger);
      const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = $1 AND last_compiled_at IS NULL`, [big]);
      const batches = await db.query<{ batch: string; n: number }>(`SELECT metadata->>'batch' AS batch, count(*)::int AS n FROM episodes WHERE metadata->>'batch' LIKE $1 GROUP BY 1 ORDER BY 1`, [`term-${round}-%`]);
      await db.release();
      expect(problems).toEqual([]);
      expect(batches).toEqual([0, 1, 2].map((i) => ({ batch: `term-${round}-${i}`, n: 100 })));
      // The compile answered 200, so it committed whole.
      expect(n).toBe(0);
      process.stdout.write(`graceful-shutdown round ${round}: exit after ${exitMs} ms, ops ${JSON.stringify(ledger.counts())}\n`);
    }
  }, 60_000 + sizes.shutdownRounds() * 90_000);
});
