import request from 'supertest';
import { isDatabaseUnavailable } from 'src/common/errors/database-unavailable';
import { createTestApp, isPglite, TestApp } from '../app-factory';
import { BlackholeProxy } from '../reliability/harness/blackhole-proxy';

/**
 * Time limits on PostgreSQL connections (data-source.ts). PostgreSQL only: the embedded engine
 * runs in this process and has no network between the service and the database; its rule —
 * no request holds the one connection while it waits on a client — is tested with the export
 * (bounded-reads.e2e-spec.ts).
 */
if (!isPglite()) {
  describe('PostgreSQL connection time limits', () => {
    describe('server-side limits', () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await createTestApp({ SERVICE_DATABASE_STATEMENT_TIMEOUT_MS: '2000', SERVICE_DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '400' });
      });
      afterAll(() => t.close());

      it('sets statement_timeout and idle_in_transaction_session_timeout on every pooled connection', async () => {
        // Five concurrent reads take five connections of the pool.
        const seen = await Promise.all(
          Array.from({ length: 5 }, () => t.ds.transaction(async (em) => {
            const [row] = await em.query(`SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS it, pg_backend_pid() AS pid, pg_sleep(0.05)`);
            return row as { st: string; it: string; pid: number };
          })),
        );
        expect(new Set(seen.map((r) => r.pid)).size).toBeGreaterThan(1);
        for (const r of seen) expect({ st: r.st, it: r.it }).toEqual({ st: '2s', it: '400ms' });
      });

      it('cancels a statement that runs past the limit, as an outage the client may retry (503), not a bug', async () => {
        const err = await t.ds.query('SELECT pg_sleep(4)').then(() => null, (e: unknown) => e);
        expect(err).toBeTruthy();
        expect((err as { driverError?: { code?: string } }).driverError?.code).toBe('57014');
        expect(isDatabaseUnavailable(err)).toBe(true);
      });

      it('ends a session left idle inside a transaction, releasing its locks', async () => {
        const runner = t.ds.createQueryRunner();
        await runner.connect();
        await runner.startTransaction();
        await runner.query('SELECT 1');
        await new Promise((r) => setTimeout(r, 900));
        await expect(runner.query('SELECT 1')).rejects.toThrow();
        await runner.release().catch(() => undefined);
        expect(await t.ds.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      });
    });

    describe('a database that stops answering without closing', () => {
      let t: TestApp;
      let proxy: BlackholeProxy;
      beforeAll(async () => {
        proxy = BlackholeProxy.forUrl(process.env.TEST_DB_URL!);
        await proxy.start();
        t = await createTestApp({ SERVICE_DATABASE_URL: proxy.rewrite(process.env.TEST_DB_URL!), SERVICE_DATABASE_QUERY_TIMEOUT_MS: '1000' });
      });
      afterAll(async () => {
        proxy.thaw();
        await t.close();
        await proxy.stop();
      });

      it('answers 503 within the query timeout while frozen, and recovers when it answers again', async () => {
        await request(t.http).post('/v1/episodes').send({ subject_id: 'frozen', source: 'user', type: 'note', payload: { text: 'before' } }).expect(201);
        proxy.freeze();
        const started = Date.now();
        const res = await request(t.http).get('/v1/timeline').query({ subject_id: 'frozen' });
        const ms = Date.now() - started;
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('service_unavailable');
        expect(ms).toBeLessThan(7000);
        // Every later request fails as fast: a timed-out connection is closed, not handed on.
        const again = Date.now();
        expect((await request(t.http).get('/v1/timeline').query({ subject_id: 'frozen' })).status).toBe(503);
        expect(Date.now() - again).toBeLessThan(7000);
        proxy.thaw();
        const after = await request(t.http).get('/v1/timeline').query({ subject_id: 'frozen' }).expect(200);
        expect(after.body.episodes).toHaveLength(1);
      }, 40_000);
    });
  });
}

if (isPglite()) {
  describe('embedded engine: waiting for its one connection', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('answers 503 after the connect timeout while something holds the connection, then serves again', async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const holder = t.ds.transaction(async (em) => {
        await em.query('SELECT 1');
        await held;
      });
      const started = Date.now();
      const res = await request(t.http).get('/v1/timeline').query({ subject_id: 'waiting' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(Date.now() - started).toBeLessThan(8000);
      release();
      await holder;
      await request(t.http).get('/v1/timeline').query({ subject_id: 'waiting' }).expect(200);
    }, 30_000);
  });
}
