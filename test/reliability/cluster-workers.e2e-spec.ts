import { spawn } from 'node:child_process';
import { Client } from 'pg';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { HttpDrainService } from 'src/common/http/http-drain.service';
import { isPglite } from '../app-factory';
import { call, rawRequest } from './harness/http-raw';
import { checkConverged, checkInvariants } from './harness/invariants';
import { Ledger } from './harness/ledger';
import { assertBuilt, baseEnv, MAIN_JS, provisionDb, REPO_ROOT, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { eventually, rng, seed, sizes, sleep, within } from './harness/settings';
import { PrivatePostgres } from '../support/private-pg';
import { WebhookReceiver } from './harness/webhook-receiver';
import { clientLoop, conversation } from './harness/workload';

/**
 * SERVICE_WORKERS=2 (src/cluster) against the built service started as production starts it:
 * requests are answered by both worker processes, /metrics is one view across them behind the
 * operator key, background work runs once (compile jobs attempts = 1, compiles counted once in
 * the aggregate, each webhook event delivered), a killed worker is replaced, and SIGTERM to the
 * primary drains every worker's in-flight requests before all exit. On the embedded engine more
 * than one worker is refused at start.
 */
const KEY = 'cluster-test-key';
const auth = { 'X-API-Key': KEY };

/** Live child processes of `pid` (the cluster's workers), from /proc. */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out.sort((a, b) => a - b);
}

/** The samples of one metric family from an exposition, as `labels → value`. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(name.length, space), Number(line.slice(space + 1)));
  }
  return out;
}

async function scrape(base: string): Promise<string> {
  const r = await rawRequest(base, { method: 'GET', path: '/metrics', headers: auth, timeoutMs: 15_000 });
  expect(r.status).toBe(200);
  return r.text;
}

/** Requests served per worker pid, from memory_cluster_worker_requests_total. */
function perPid(text: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [labels, v] of samples(text, 'memory_cluster_worker_requests_total')) out.set(Number(/pid="(\d+)"/.exec(labels)![1]), v);
  return out;
}

if (isPglite()) {
  describe('SERVICE_WORKERS on the embedded engine (built service)', () => {
    it('refuses more than one worker at start, saying why', async () => {
      assertBuilt();
      const db = await provisionDb('pglite');
      try {
        const child = spawn(process.execPath, [MAIN_JS], { env: baseEnv({ ...db.env, SERVICE_WORKERS: '2', SERVICE_PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO_ROOT });
        let out = '';
        child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
        child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
        const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
        expect(code).toBe(1);
        expect(out).toContain('SERVICE_WORKERS=2 needs SERVICE_DATABASE_URL: the embedded engine (PGlite) runs in one process that owns its data directory');
        // Refused before anything was opened: no worker was forked, no database created.
        expect(out).not.toContain('starting HTTP workers');
        expect(existsSync(`${db.env.SERVICE_DATA_DIR}/pglite`)).toBe(false);
      } finally {
        await db.drop();
      }
    });
  });
} else {
  describe('SERVICE_WORKERS=2 on PostgreSQL (built service)', () => {
    const receiver = new WebhookReceiver();
    let db: ServiceDb;
    let svc: ServiceProcess | null = null;

    beforeAll(async () => {
      await receiver.start();
      db = await provisionDb('postgres');
      svc = await startService(baseEnv({ ...db.env, SERVICE_WORKERS: '2', SERVICE_API_KEY: KEY, SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_TIMEOUT: '2', SERVICE_LOG_LEVEL: 'warn' }), { prodFlags: true });
      // /healthz answered once one worker listened: wait for both.
      await eventually('two workers', 30_000, async () => children(svc!.child.pid!).length === 2);
      await eventually('both workers serving', 30_000, async () => {
        for (let i = 0; i < 4; i++) await rawRequest(svc!.base, { method: 'GET', path: '/healthz', headers: { Connection: 'close' } });
        return perPid(await scrape(svc!.base)).size === 2;
      });
    }, 120_000);
    afterAll(async () => {
      await svc?.stop(40_000);
      await db?.drop();
      await receiver.stop();
    });

    it('answers from both workers and aggregates /metrics across them, behind the operator key', async () => {
      const base = svc!.base;
      const pids = children(svc!.child.pid!);
      expect(pids).toHaveLength(2);
      expect((await rawRequest(base, { method: 'GET', path: '/metrics' })).status).toBe(401);

      const before = await scrape(base);
      const n = 40;
      // A new connection each: the primary hands connections to the workers round-robin.
      for (let i = 0; i < n; i++) expect((await rawRequest(base, { method: 'GET', path: '/v1/subjects?limit=1', headers: { ...auth, Connection: 'close' } })).status).toBe(200);
      const after = await scrape(base);

      const served = perPid(after);
      expect([...served.keys()].sort((a, b) => a - b)).toEqual(pids);
      const was = perPid(before);
      for (const pid of pids) expect(served.get(pid)! - (was.get(pid) ?? 0)).toBeGreaterThan(0);
      // One sum across workers: each request counted once, whichever worker answered it.
      const key = '{method="GET",route="/v1/subjects",status="200"}';
      expect((samples(after, 'http_requests_total').get(key) ?? 0) - (samples(before, 'http_requests_total').get(key) ?? 0)).toBe(n);
      // Gauges read from the database are one reading, not one per worker.
      const [{ pending }] = await db.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM compile_jobs WHERE status = 'pending'`);
      expect(samples(after, 'memory_compile_jobs').get('{status="pending"}')).toBe(pending);
    });

    it('runs each compile job once and delivers each event, under mixed load on both workers', async () => {
      const s = seed();
      const ledger = new Ledger();
      const target = { base: () => svc!.base, headers: () => ({ ...auth, Connection: 'close' }) };
      const total = sizes.replicaOps();
      await Promise.all(Array.from({ length: 4 }, (_, i) => clientLoop({ ledger, target, r: rng(s + i), subjects: [`w${i}-a`, `w${i}-b`], tenant: null, stop: () => false, maxOps: Math.ceil(total / 4) })));
      ledger.settle();
      expect(ledger.ops.filter((o) => o.state !== 'acked').map((o) => `${o.kind} ${o.status} ${o.error}`)).toEqual([]);
      await eventually('jobs and events drained', 60_000, async () => {
        const [pending, running, stats] = await Promise.all([
          call(svc!.base, 'GET', '/admin/jobs?status=pending&limit=1', undefined, auth),
          call(svc!.base, 'GET', '/admin/jobs?status=running&limit=1', undefined, auth),
          call(svc!.base, 'GET', '/admin/webhooks/stats', undefined, auth),
        ]);
        return pending.body.jobs.length === 0 && running.body.jobs.length === 0 && stats.body.pending === 0;
      });
      expect(await checkInvariants(db.query, ledger)).toEqual([]);
      expect(await checkConverged(db.query, ledger, new Set(receiver.events.keys()))).toEqual([]);
      expect(await db.query(`SELECT id, attempts FROM compile_jobs WHERE attempts <> 1`)).toEqual([]);
      // The aggregate counts each job's run once: no more runs than jobs were created (a subject
      // deleted meanwhile takes its jobs with it, run or not), no fewer than the completed rows left.
      const [{ jobs }] = await db.query<{ jobs: number }>(`SELECT count(*)::int AS jobs FROM compile_jobs WHERE status = 'completed'`);
      const created = new Set(ledger.ops.filter((o) => o.kind === 'compile_async' && o.jobId).map((o) => o.jobId)).size;
      let runs = 0;
      for (const [labels, v] of samples(await scrape(svc!.base), 'memory_compiles_total')) if (labels.includes('mode="async"')) runs += v;
      expect(runs).toBeGreaterThanOrEqual(jobs);
      expect(runs).toBeLessThanOrEqual(created);
      expect(receiver.malformed).toEqual([]);
      process.stdout.write(`cluster-workers: seed=${s} ops=${JSON.stringify(ledger.counts())} jobs=${created} runs=${runs} redeliveries=${receiver.redeliveries}\n`);
    }, 240_000);

    it('replaces a killed worker and keeps answering', async () => {
      const before = children(svc!.child.pid!);
      process.kill(before[0], 'SIGKILL');
      await eventually('a new worker', 30_000, async () => {
        const now = children(svc!.child.pid!);
        return now.length === 2 && !now.includes(before[0]);
      });
      const now = children(svc!.child.pid!);
      expect(now).toContain(before[1]);
      await eventually('the new worker serves', 30_000, async () => {
        for (let i = 0; i < 4; i++) expect((await rawRequest(svc!.base, { method: 'GET', path: '/v1/subjects?limit=1', headers: { ...auth, Connection: 'close' } })).status).toBe(200);
        return perPid(await scrape(svc!.base)).has(now.find((p) => p !== before[1])!);
      });
      expect(svc!.lines.some((l) => l.includes('worker exited; restarting it'))).toBe(true);
    }, 90_000);

    it('on SIGTERM finishes every worker in-flight requests, then all processes exit cleanly', async () => {
      const base = svc!.base;
      const pids = children(svc!.child.pid!);
      const r = rng(seed() + 99);
      for (let i = 0; i < 2; i++) {
        const res = await rawRequest(base, { method: 'POST', path: '/v1/episodes/batch', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ episodes: Array.from({ length: 100 }, () => conversation(r, 'term-big')) }) });
        expect(res.status).toBe(201);
      }
      // Separate connections, so both workers hold some of them at SIGTERM.
      const inflight = [
        rawRequest(base, { method: 'POST', path: '/v1/memories/compile', headers: { ...auth, 'Content-Type': 'application/json', Connection: 'close' }, body: JSON.stringify({ subject_id: 'term-big' }), timeoutMs: 60_000 }),
        ...Array.from({ length: 5 }, (_, i) =>
          rawRequest(base, {
            method: 'POST',
            path: '/v1/episodes/batch',
            headers: { ...auth, 'Content-Type': 'application/json', Connection: 'close' },
            body: JSON.stringify({ episodes: Array.from({ length: 100 }, () => conversation(r, `term-${i}`, { metadata: { batch: `term-${i}` } })) }),
            timeoutMs: 60_000,
          }),
        ),
      ];
      await sleep(300);
      const termAt = Date.now();
      svc!.kill('SIGTERM');
      const answers = await Promise.all(inflight);
      expect(answers.map((a) => a.status)).toEqual([200, 201, 201, 201, 201, 201]);
      const exit = await within(svc!.exited, 40_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - termAt).toBeLessThan(HttpDrainService.DRAIN_TIMEOUT_MS);
      for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
      svc = null;
      const batches = await db.query<{ batch: string; n: number }>(`SELECT metadata->>'batch' AS batch, count(*)::int AS n FROM episodes WHERE metadata->>'batch' LIKE 'term-%' GROUP BY 1 ORDER BY 1`);
      expect(batches).toEqual([0, 1, 2, 3, 4].map((i) => ({ batch: `term-${i}`, n: 100 })));
      const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 'term-big' AND last_compiled_at IS NULL`);
      expect(n).toBe(0);
      await db.release();
    }, 120_000);
  });

  describe('SERVICE_WORKERS=2 with a read replica (private primary + hot standby, built service)', () => {
    let primary: PrivatePostgres;
    let replica: PrivatePostgres;
    let rc: Client;
    let svc: ServiceProcess | null = null;

    beforeAll(async () => {
      primary = new PrivatePostgres();
      await primary.init();
      replica = await primary.startReplica();
      rc = new Client({ connectionString: replica.url() });
      await rc.connect();
      // The standby applies WAL 300 ms late: a read it serves right after a write misses it.
      await rc.query(`ALTER SYSTEM SET recovery_min_apply_delay = '300ms'`);
      await rc.query('SELECT pg_reload_conf()');
      svc = await startService(
        baseEnv({
          SERVICE_DATABASE_URL: primary.url(),
          SERVICE_WORKERS: '2',
          SERVICE_API_KEY: KEY,
          SERVICE_DATABASE_POOL_SIZE: '4',
          SERVICE_READ_REPLICA_URLS: JSON.stringify([replica.url()]),
          SERVICE_READ_REPLICA_MAX_LAG: '5',
          SERVICE_READ_YOUR_WRITES_WINDOW: '10',
          SERVICE_LOG_LEVEL: 'warn',
        }),
      );
      await eventually('both workers serving', 30_000, async () => {
        for (let i = 0; i < 4; i++) await rawRequest(svc!.base, { method: 'GET', path: '/healthz', headers: { Connection: 'close' } });
        return perPid(await scrape(svc!.base)).size === 2;
      });
      await eventually('replica serving', 30_000, async () => (await call(svc!.base, 'GET', '/readyz')).body.checks?.replicas?.[0]?.state === 'ok');
    }, 120_000);
    afterAll(async () => {
      await svc?.stop(40_000);
      await rc?.end().catch(() => undefined);
      await replica?.destroy();
      await primary?.destroy();
    });

    it('keeps read-your-writes when the write and the read land on different workers (fences relayed by the primary)', async () => {
      const fresh = { ...auth, Connection: 'close', 'Content-Type': 'application/json' };
      const before = samples(await scrape(svc!.base), 'memory_db_reads_total');
      const stale: string[] = [];
      // A new connection per request: the primary alternates them between the two workers, so
      // about half of the reads run on the worker that did not take the write.
      await Promise.all(
        Array.from({ length: 3 }, async (_, w) => {
          for (let i = 0; i < 10; i++) {
            const subject = `relay-${w}`;
            const body = JSON.stringify({ subject_id: subject, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: `note ${w}-${i}` }] } });
            const written = await rawRequest(svc!.base, { method: 'POST', path: '/v1/episodes', headers: fresh, body });
            expect(written.status).toBe(201);
            const id = (written.json as { id: string }).id;
            const read = await rawRequest(svc!.base, { method: 'GET', path: `/v1/timeline?subject_id=${subject}`, headers: fresh });
            expect(read.status).toBe(200);
            if (!(read.json as { episodes: { id: string }[] }).episodes.some((e) => e.id === id)) stale.push(`${subject} #${i}`);
          }
        }),
      );
      expect(stale).toEqual([]);
      const after = samples(await scrape(svc!.base), 'memory_db_reads_total');
      const delta = (labels: string) => (after.get(labels) ?? 0) - (before.get(labels) ?? 0);
      // The fenced reads went to the primary (the standby had not replayed them)...
      expect(delta('{target="primary",reason="unreplayed_write"}')).toBeGreaterThanOrEqual(25);
      // ...and the replica is in use for everything else (the timeline of an unwritten subject).
      for (let i = 0; i < 6; i++) expect((await rawRequest(svc!.base, { method: 'GET', path: '/v1/timeline?subject_id=never-written', headers: fresh })).status).toBe(200);
      expect((samples(await scrape(svc!.base), 'memory_db_reads_total').get('{target="replica",reason="replica"}') ?? 0) - (before.get('{target="replica",reason="replica"}') ?? 0)).toBeGreaterThanOrEqual(6);
    }, 120_000);
  });
}
