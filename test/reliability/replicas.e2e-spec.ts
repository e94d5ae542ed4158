import { Client } from 'pg';
import { resetOrphanedJobs } from 'src/cli/jobs.command';
import { AdvisoryLock, advisoryLockKeySql } from 'src/common/db/advisory-locks';
import { RateLimitCleanup } from 'src/common/throttle/rate-limit-cleanup.service';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { SnapshotsCleanupService } from 'src/modules/snapshots/snapshots-cleanup.service';
import { WebhookRetention } from 'src/modules/webhooks/webhook-retention';
import { createTestApp, isPglite, TestApp } from '../app-factory';
import { call } from './harness/http-raw';
import { checkConverged, checkInvariants } from './harness/invariants';
import { Ledger } from './harness/ledger';
import { baseEnv, provisionDb, runCli, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { eventually, rng, seed, sizes } from './harness/settings';
import { WebhookReceiver } from './harness/webhook-receiver';
import { clientLoop } from './harness/workload';

/**
 * Two replicas on one PostgreSQL database (PostgreSQL only: PGlite is one process's database).
 * Two built service processes, workers on in both, behind a round-robin client under mixed load:
 * each async compile job runs once (attempts = 1, one summary per episode), each webhook event
 * is delivered (redeliveries only under the same event id), the distributed rate limit holds
 * across both, and the hourly cleanups run under advisory locks so only one replica does each.
 */
const RPM = 30;

if (!isPglite()) {
  describe('two replicas, one PostgreSQL database (built service)', () => {
    const receiver = new WebhookReceiver();
    let db: ServiceDb;
    let replicas: ServiceProcess[] = [];

    beforeAll(async () => {
      await receiver.start();
      db = await provisionDb('postgres');
      const env = baseEnv({ ...db.env, SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_TIMEOUT: '2', SERVICE_RATE_LIMIT_RPM: String(RPM), SERVICE_TRUSTED_PROXIES: 'loopback', SERVICE_LOG_LEVEL: 'warn' });
      // Started together: the migration runs once under its advisory lock.
      replicas = await Promise.all([startService(env), startService(env)]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.stop(10_000)));
      await db?.drop();
      await receiver.stop();
    });

    it('runs each compile job once and delivers each event, under round-robin mixed load', async () => {
      const s = seed();
      const total = sizes.replicaOps();
      const ledger = new Ledger();
      let n = 0;
      let ip = 0;
      const target = { base: () => replicas[n++ % 2].base, headers: () => ({ 'X-Forwarded-For': `10.2.${(++ip >> 8) & 255}.${ip & 255}` }) };
      await Promise.all(Array.from({ length: 4 }, (_, i) => clientLoop({ ledger, target, r: rng(s + i), subjects: [`r${i}-a`, `r${i}-b`], tenant: null, stop: () => false, maxOps: Math.ceil(total / 4) })));
      ledger.settle();
      expect(ledger.ops.filter((o) => o.state !== 'acked').map((o) => `${o.kind} ${o.status} ${o.error}`)).toEqual([]);
      await eventually('both replicas drained jobs and events', 60_000, async () => {
        const [pending, running, stats] = await Promise.all([
          call(replicas[0].base, 'GET', '/admin/jobs?status=pending&limit=1'),
          call(replicas[1].base, 'GET', '/admin/jobs?status=running&limit=1'),
          call(replicas[0].base, 'GET', '/admin/webhooks/stats'),
        ]);
        return pending.body.jobs.length === 0 && running.body.jobs.length === 0 && stats.body.pending === 0;
      });
      expect(await checkInvariants(db.query, ledger)).toEqual([]);
      expect(await checkConverged(db.query, ledger, new Set(receiver.events.keys()))).toEqual([]);
      const multi = await db.query<{ id: string; attempts: number }>(`SELECT id, attempts FROM compile_jobs WHERE attempts <> 1`);
      expect(multi).toEqual([]);
      const [{ events }] = await db.query<{ events: number }>(`SELECT count(*)::int AS events FROM webhook_events`);
      // Deleting a subject also removes its stored events (deletion receipts), delivered or not: every
      // remaining row was delivered, and the receiver may have seen more than remain.
      expect(receiver.events.size).toBeGreaterThanOrEqual(events);
      expect(receiver.malformed).toEqual([]);
      // Both replicas did work (claims are shared, not one process doing everything).
      const jobsDone = ledger.ops.filter((o) => o.kind === 'compile_async' && o.state === 'acked').length;
      process.stdout.write(`replicas: seed=${s} ops=${JSON.stringify(ledger.counts())} jobs=${jobsDone} events=${events} redeliveries=${receiver.redeliveries}\n`);
    }, 240_000);

    it('holds the distributed rate limit across both replicas (fails neither open nor double)', async () => {
      const headers = { 'X-Forwarded-For': '10.7.7.7' };
      const statuses: number[] = [];
      for (let i = 0; i < RPM * 3; i++) statuses.push((await call(replicas[i % 2].base, 'GET', '/v1/subjects?limit=1', undefined, headers)).status);
      const allowed = statuses.filter((x) => x === 200).length;
      const limited = statuses.filter((x) => x === 429).length;
      expect({ allowed, limited }).toEqual({ allowed: RPM, limited: RPM * 2 });
    });
  });

  describe('hourly cleanups on two apps sharing one PostgreSQL database', () => {
    let a: TestApp;
    let b: TestApp;
    let holder: Client;
    beforeAll(async () => {
      a = await createTestApp({ SERVICE_ENABLE_SNAPSHOTS: 'true' });
      b = await createTestApp({ SERVICE_ENABLE_SNAPSHOTS: 'true' }, { reset: false });
      holder = new Client({ connectionString: process.env.TEST_DB_URL });
      await holder.connect();
    });
    afterAll(async () => {
      await holder.end();
      await b.close();
      await a.close();
    });

    const cleanups: [string, string, (t: TestApp) => Promise<unknown>, (v: unknown) => boolean][] = [
      ['rate-limit windows', `SELECT pg_advisory_xact_lock(${advisoryLockKeySql(AdvisoryLock.RateLimitCleanup)})`, (t) => t.app.get(RateLimitCleanup).runOnce(), (v) => v === null],
      ['orphaned compile jobs', `SELECT pg_advisory_xact_lock(${advisoryLockKeySql(AdvisoryLock.CompileJobsOrphans)})`, (t) => t.app.get(CompileJobsWorker).resetOrphaned(0), (v) => Array.isArray(v) && v.length === 0],
      ['snapshot subjects', `SELECT pg_advisory_xact_lock(${advisoryLockKeySql(AdvisoryLock.SnapshotsCleanup)})`, (t) => t.app.get(SnapshotsCleanupService).scheduledCleanup(), (v) => v === null],
      ['webhook retention', `SELECT pg_advisory_xact_lock(${advisoryLockKeySql(AdvisoryLock.WebhookRetention)})`, (t) => t.app.get(WebhookRetention).runOnce(), (v) => v === null],
    ];

    it.each(cleanups)('%s: skipped by both while another process holds the lock', async (_name, lockSql, run, skipped) => {
      await holder.query('BEGIN');
      await holder.query(lockSql);
      try {
        const [x, y] = await Promise.all([run(a), run(b)]);
        expect(skipped(x)).toBe(true);
        expect(skipped(y)).toBe(true);
      } finally {
        await holder.query('ROLLBACK');
      }
    });

    it('jobs reset-orphaned waits for the lock a worker holds, then resets what is left', async () => {
      await a.ds.query(`INSERT INTO compile_jobs (subject_id, status, started_at, updated_at, attempts) VALUES ('cli-orph', 'running', now() - interval '2 hours', now() - interval '2 hours', 1)`);
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(${advisoryLockKeySql(AdvisoryLock.CompileJobsOrphans)})`);
      const lines: string[] = [];
      let done = false;
      const reset = resetOrphanedJobs(a.ds, 30, 3, (l) => lines.push(l)).finally(() => (done = true));
      try {
        await eventually('the command to wait for the lock', 10_000, async () => lines.join('\n').includes('waiting for it'));
        expect(done).toBe(false);
      } finally {
        await holder.query('ROLLBACK');
      }
      expect(await reset).toBe(1);
      await a.ds.query(`DELETE FROM compile_jobs WHERE subject_id = 'cli-orph'`);
    });

    it('rate-limit windows: concurrent runs delete each expired window once in total', async () => {
      for (let round = 0; round < 5; round++) {
        await a.ds.query(`INSERT INTO rate_limits (key, window_start, hits) SELECT 'k' || g || '-' || $1, now() - interval '2 hours', 1 FROM generate_series(1, 50) g`, [round]);
        const results = await Promise.all([a.app.get(RateLimitCleanup).runOnce(), b.app.get(RateLimitCleanup).runOnce(), a.app.get(RateLimitCleanup).runOnce()]);
        expect(results.reduce<number>((sum, v) => sum + (v ?? 0), 0)).toBe(50);
      }
    });

    it('webhook retention: concurrent runs in small batches delete each expired event once in total, and nothing else', async () => {
      await a.ds.query(`INSERT INTO webhook_events (event, payload, status, next_attempt_at, delivered_at)
        SELECT 'episode.created', '{}', 'delivered', now() - interval '10 days', now() - interval '10 days' FROM generate_series(1, 50)`);
      await a.ds.query(`INSERT INTO webhook_events (event, payload, status, next_attempt_at) SELECT 'episode.created', '{}', 'pending', now() - interval '10 days' FROM generate_series(1, 5)`);
      // One run per process (a second call in the same process joins the running one).
      const results = await Promise.all([a.app.get(WebhookRetention).runOnce(7), b.app.get(WebhookRetention).runOnce(7)]);
      expect(results.reduce<number>((sum, v) => sum + (v?.delivered ?? 0), 0)).toBe(50);
      expect(await a.ds.query(`SELECT status, count(*)::int AS n FROM webhook_events GROUP BY status`)).toEqual([{ status: 'pending', n: 5 }]);
    });

    it('orphaned jobs: concurrent resets return each orphan once in total', async () => {
      // Orphans: claimed long ago and their lease (updated_at, renewed by a live worker) lapsed too.
      await a.ds.query(`INSERT INTO compile_jobs (subject_id, status, started_at, updated_at, attempts) SELECT 'orph-' || g, 'running', now() - interval '2 hours', now() - interval '2 hours', 1 FROM generate_series(1, 20) g`);
      const results = await Promise.all([a.app.get(CompileJobsWorker).resetOrphaned(30), b.app.get(CompileJobsWorker).resetOrphaned(30)]);
      const ids = results.flat().map((j) => j.id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });
  });
}

if (isPglite()) {
  describe('two processes on one PGlite data directory (built service)', () => {
    let db: ServiceDb;
    let owner: ServiceProcess;
    beforeAll(async () => {
      db = await provisionDb('pglite');
      owner = await startService(baseEnv({ ...db.env, SERVICE_LOG_LEVEL: 'warn' }));
    }, 120_000);
    afterAll(async () => {
      await owner?.stop(10_000);
      await db?.drop();
    });

    it('a second service on the same data directory refuses to start; the owner keeps serving', async () => {
      const env = baseEnv({ ...db.env, SERVICE_LOG_LEVEL: 'warn' });
      await expect(startService(env, { readyTimeoutMs: 60_000 })).rejects.toThrow(/in use by process \d+/);
      expect((await call(owner.base, 'POST', '/v1/episodes', { subject_id: 'lock', source: 'user', type: 'note', payload: { text: 'still mine' } })).status).toBe(201);
    }, 90_000);

    it('the operator CLI refuses the data directory while the service owns it', async () => {
      const r = await runCli(baseEnv({ ...db.env }), ['jobs', 'reset-orphaned', '--older-than-minutes', '0']);
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/in use by process/);
    }, 90_000);
  });
}
