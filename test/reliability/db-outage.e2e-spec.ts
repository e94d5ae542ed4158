import { isPglite } from '../app-factory';
import { call, rawRequest } from './harness/http-raw';
import { Ledger } from './harness/ledger';
import { PrivatePostgres } from '../support/private-pg';
import { BlackholeProxy } from './harness/blackhole-proxy';
import { baseEnv, provisionDb, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { eventually, rng, seed, sizes, sleep } from './harness/settings';
import { WebhookReceiver } from './harness/webhook-receiver';
import { clientLoop } from './harness/workload';

/**
 * Database outage (PostgreSQL only): the built service runs on a private PostgreSQL instance
 * (initdb in a temporary directory, its own port). Under load the instance is stopped
 * (immediate: connections cut) and started again. While it is down: /readyz answers 503 fast,
 * API requests fail fast with 503 `service_unavailable` in the envelope (never 500, never a
 * hung socket), the rate limiter fails open (no 429 although one client exceeds the limit), and
 * the process stays up. When it is back the service recovers by itself: /readyz 200, writes
 * succeed, the compile worker and the webhook worker resume.
 */
const FAST_MS = 6000;
const RPM = 5;

if (!isPglite()) {
  describe('database outage (private PostgreSQL instance)', () => {
    const pg = new PrivatePostgres();
    const receiver = new WebhookReceiver();
    let svc: ServiceProcess;

    beforeAll(async () => {
      await pg.init();
      await receiver.start();
      svc = await startService(
        baseEnv({
          SERVICE_DATABASE_URL: pg.url(),
          SERVICE_AUTO_MIGRATE: 'true',
          SERVICE_WEBHOOK_URL: receiver.url,
          SERVICE_WEBHOOK_TIMEOUT: '2',
          SERVICE_RATE_LIMIT_RPM: String(RPM),
          SERVICE_TRUSTED_PROXIES: 'loopback',
          SERVICE_LOG_LEVEL: 'info',
        }),
      );
    }, 120_000);
    afterAll(async () => {
      await svc?.stop(10_000);
      await receiver.stop();
      await pg.destroy();
    });

    // Every load request comes from its own client address, so only the outage probe (one
    // address, many requests) would ever meet the limit.
    let ip = 0;
    const fromNewIp = () => ({ 'X-Forwarded-For': `10.1.${(++ip >> 8) & 255}.${ip & 255}` });

    it('fails fast with 503 envelopes while down, fails the limiter open, and recovers with its workers', async () => {
      const cycles = sizes.outageCycles();
      const s = seed();
      process.stdout.write(`db-outage: seed=${s} cycles=${cycles}\n`);
      for (let cycle = 1; cycle <= cycles; cycle++) {
        const ledger = new Ledger();
        let stop = false;
        const loops = Array.from({ length: 3 }, (_, i) =>
          clientLoop({ ledger, target: { base: () => svc.base, headers: fromNewIp }, r: rng(s + cycle * 10 + i), subjects: [`o${cycle}-${i}`], tenant: null, stop: () => stop, maxOps: 100_000, timeoutMs: 20_000 }),
        );
        await sleep(700);
        const stoppedAt = Date.now();
        await pg.stop('immediate');

        // /readyz turns 503 quickly, and every answer meanwhile is quick.
        await eventually('readyz 503 while the database is down', 15_000, async () => {
          const r = await rawRequest(svc.base, { method: 'GET', path: '/readyz', timeoutMs: FAST_MS + 2000 });
          expect(r.ms).toBeLessThan(FAST_MS);
          return r.status === 503;
        });
        const readyAfterMs = Date.now() - stoppedAt;
        const ready = await rawRequest(svc.base, { method: 'GET', path: '/readyz', timeoutMs: FAST_MS + 2000 });
        expect(ready.status).toBe(503);
        expect((ready.json as { error: { code: string } }).error.code).toBe('service_unavailable');

        // One client over the limit: the limiter cannot count, so it lets requests through to a 503.
        const probe = { 'X-Forwarded-For': '10.9.9.9', 'Content-Type': 'application/json' };
        const answers = [];
        for (let i = 0; i < RPM * 3; i++) {
          const path = i % 3 === 0 ? '/v1/episodes' : i % 3 === 1 ? '/v1/timeline?subject_id=x' : '/v1/memories/compile';
          const body = i % 3 === 0 ? JSON.stringify({ subject_id: 'x', source: 'user', type: 'note', payload: { text: 'down' } }) : i % 3 === 2 ? JSON.stringify({ subject_id: 'x', async: true }) : null;
          answers.push(await rawRequest(svc.base, { method: body ? 'POST' : 'GET', path, headers: probe, body, timeoutMs: FAST_MS + 2000 }));
        }
        for (const a of answers) {
          expect(a.ms).toBeLessThan(FAST_MS);
          expect({ status: a.status, code: (a.json as { error?: { code: string } })?.error?.code }).toEqual({ status: 503, code: 'service_unavailable' });
          expect(a.headers['retry-after']).toBe('1');
        }
        expect((await rawRequest(svc.base, { method: 'GET', path: '/healthz' })).status).toBe(200);
        expect(svc.child.exitCode).toBeNull();

        await pg.start();
        const restartedAt = Date.now();
        await eventually('readyz 200 after the database is back', 30_000, async () => (await rawRequest(svc.base, { method: 'GET', path: '/readyz' })).status === 200, 200);
        const recoverMs = Date.now() - restartedAt;
        stop = true;
        await Promise.all(loops);

        // No 500 during the whole cycle; failures are 503s (or a request cut by the outage).
        const bad = ledger.ops.filter((o) => o.state === 'failed' && o.status !== 503);
        expect(bad.map((o) => `${o.kind} ${o.status} ${o.error}`)).toEqual([]);

        // Writes work again, and both workers resumed.
        const ep = await call(svc.base, 'POST', '/v1/episodes', { subject_id: `after-${cycle}`, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My name is Ada.' }] } }, fromNewIp());
        expect(ep.status).toBe(201);
        const job = await call(svc.base, 'POST', '/v1/memories/compile', { subject_id: `after-${cycle}`, async: true }, fromNewIp());
        expect(job.status).toBe(202);
        await eventually('compile job after the outage completes', 30_000, async () => {
          const st = await call(svc.base, 'GET', `/v1/memories/compile/${job.body.job_id}`, undefined, fromNewIp());
          return st.body.status === 'completed';
        });
        await eventually('episode.created of the new episode delivered', 30_000, async () => [...receiver.events.values()].some((e) => e.body.data.id === ep.body.id));
        process.stdout.write(
          `db-outage cycle ${cycle}: readyz 503 after ${readyAfterMs} ms, ready again ${recoverMs} ms after start, ops ${JSON.stringify(ledger.counts())}, max answer while down ${Math.max(...answers.map((a) => a.ms))} ms\n`,
        );
      }
    }, 120_000 + sizes.outageCycles() * 90_000);

    it('treated the outage as an outage: no unhandled-error lines (500 path), warnings instead, and stayed up', () => {
      expect(svc.child.exitCode).toBeNull();
      expect(svc.lines.filter((l) => l.includes('unhandled error'))).toEqual([]);
      expect(svc.lines.some((l) => l.includes('database unavailable'))).toBe(true);
    });
  });

  /**
   * A database that stops answering without closing anything (a network partition, a stopped
   * VM: no RST, no FIN), against the built service started as `npm run start:prod` starts it.
   * A loopback proxy between the service and PostgreSQL goes silent, then answers again. While
   * it is silent every request ends with 503 `service_unavailable` in the envelope within the
   * client query timeout (never a hung socket, never a 500), /readyz says 503, and the process
   * stays up; afterwards the service recovers by itself. PostgreSQL only: the embedded engine has
   * no network between the service and its database.
   */
  const QUERY_TIMEOUT_MS = 1500;

  describe('a database that stops answering, against the production-started service', () => {
    let db: ServiceDb;
    let proxy: BlackholeProxy;
    let svc: ServiceProcess;

    beforeAll(async () => {
      db = await provisionDb('postgres');
      const url = db.env.SERVICE_DATABASE_URL;
      proxy = BlackholeProxy.forUrl(url);
      await proxy.start();
      svc = await startService(
        baseEnv({ SERVICE_DATABASE_URL: proxy.rewrite(url), SERVICE_DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), SERVICE_WORKERS_ENABLED: 'false' }),
        { prodFlags: true, readyTimeoutMs: 180_000 },
      );
    }, 240_000);

    afterAll(async () => {
      proxy?.thaw();
      await svc?.stop();
      await proxy?.stop();
      await db?.drop();
    }, 60_000);

    const post = (text: string) =>
      rawRequest(svc.base, {
        method: 'POST',
        path: '/v1/episodes',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ subject_id: 'hung', source: 'user', type: 'note', payload: { text } }),
        timeoutMs: 60_000,
      });
    const get = (path: string) => rawRequest(svc.base, { method: 'GET', path, timeoutMs: 60_000 });

    it('answers 503 in the envelope while the database is silent, stays up, and recovers by itself', async () => {
      expect((await post('before the partition')).status).toBe(201);
      proxy.freeze();
      // Readiness answers are cached for about a second: let the healthy one expire.
      await new Promise((r) => setTimeout(r, 1100));
      const answers = await Promise.all([post('during the partition'), get('/v1/timeline?subject_id=hung'), get('/v1/memories/search?subject_id=hung&q=x'), get('/readyz')]);
      for (const r of answers) expect(r.status).toBe(503);
      for (const r of answers.slice(0, 3)) expect((r.json as { error: { code: string } }).error.code).toBe('service_unavailable');
      expect((await get('/healthz')).status).toBe(200);
      expect(svc.child.exitCode).toBeNull();

      proxy.thaw();
      await eventually('readiness after the partition', 60_000, async () => (await get('/readyz')).status === 200);
      expect((await post('after the partition')).status).toBe(201);
      const timeline = (await get('/v1/timeline?subject_id=hung')).json as { episodes: { payload: { text: string } }[] };
      const texts = timeline.episodes.map((e) => e.payload.text);
      expect(texts).toEqual(expect.arrayContaining(['before the partition', 'after the partition']));
      expect(svc.child.exitCode).toBeNull();
      expect(svc.lines.join('\n')).not.toMatch(/heap limit|unhandled/i);
    }, 180_000);
  });

}

if (isPglite()) {
  // The embedded database lives and dies with its process: its outage is a killed process.
  describe('embedded database outage (killed owner, built service)', () => {
    it('a killed owner leaves a stale data-directory lock that the next start takes over, with the data intact', async () => {
      const db = await provisionDb('pglite');
      const env = baseEnv({ ...db.env, SERVICE_LOG_LEVEL: 'warn' });
      try {
        const first = await startService(env);
        const ep = await call(first.base, 'POST', '/v1/episodes', { subject_id: 'outage', source: 'user', type: 'note', payload: { text: 'before the kill' } });
        expect(ep.status).toBe(201);
        first.kill('SIGKILL');
        await first.exited;
        const second = await startService(env);
        const tl = await call(second.base, 'GET', '/v1/timeline?subject_id=outage');
        expect(tl.body.episodes.map((e: { id: string }) => e.id)).toEqual([ep.body.id]);
        expect((await rawRequest(second.base, { method: 'GET', path: '/readyz' })).status).toBe(200);
        await second.stop();
      } finally {
        await db.drop();
      }
    }, 120_000);
  });
}
