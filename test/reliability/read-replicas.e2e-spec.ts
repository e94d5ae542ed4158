import { Client } from 'pg';
import request from 'supertest';
import { metrics } from 'src/common/metrics/metrics';
import { ConfigError, loadConfig } from 'src/config/app-config';
import { createTestApp, isPglite, TestApp } from '../app-factory';
import { PrivatePostgres } from '../support/private-pg';
import { eventually, sleep } from './harness/settings';

/**
 * Read replicas on real PostgreSQL streaming replication: a private primary and a hot standby
 * made from it with pg_basebackup, both in temporary directories on their own ports (torn down
 * afterwards). The service reads context, timeline, search, listings and SLA from the standby,
 * keeps read-your-writes by WAL position, and falls back to the primary when the standby lags
 * past the bound (replay paused) or goes away mid-run, without a client error.
 */
const MAX_LAG_S = 1.5;

async function reads(target: 'replica' | 'primary', reason?: string): Promise<number> {
  const { values } = await metrics.dbReads.get();
  return values.filter((v) => v.labels.target === target && (reason === undefined || v.labels.reason === reason)).reduce((n, v) => n + v.value, 0);
}

describe('read replica settings', () => {
  it('refuses replicas without PostgreSQL, with a message saying why', () => {
    expect(() => loadConfig({ SERVICE_READ_REPLICA_URLS: 'postgresql://r@127.0.0.1:5433/db' })).toThrow(ConfigError);
    expect(() => loadConfig({ SERVICE_READ_REPLICA_URLS: 'postgresql://r@127.0.0.1:5433/db' })).toThrow(/embedded engine \(PGlite\) has none/);
  });

  it('refuses a read-your-writes window that the lag bound could outlast', () => {
    const env = { SERVICE_DATABASE_URL: 'postgresql://p@127.0.0.1/db', SERVICE_READ_REPLICA_URLS: '["postgresql://r@127.0.0.1:5433/db"]' };
    expect(() => loadConfig({ ...env, SERVICE_READ_REPLICA_MAX_LAG: '10', SERVICE_READ_YOUR_WRITES_WINDOW: '5' })).toThrow(/must be longer than SERVICE_READ_REPLICA_MAX_LAG/);
    expect(loadConfig(env).readReplicaUrls).toEqual(['postgresql://r@127.0.0.1:5433/db']);
  });
});

if (!isPglite()) {
  describe('read replicas on streaming replication (private primary + hot standby)', () => {
    let primary: PrivatePostgres;
    let replica: PrivatePostgres;
    let t: TestApp;
    let pc: Client;
    let rc: Client;

    const timeline = async (subject: string) => (await request(t.http).get('/v1/timeline').query({ subject_id: subject }).expect(200)).body;
    const ingest = async (subject: string, text: string): Promise<string> =>
      (await request(t.http).post('/v1/episodes').send({ subject_id: subject, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: text }] } }).expect(201)).body.id;
    /** An episode written straight into the primary, behind the service's back (no read-your-writes fence). */
    const insertDirect = async (subject: string, text: string) => {
      await pc.query(
        `INSERT INTO episodes (subject_id, source, type, payload, content_text) VALUES ($1, 'user', 'conversation', $2, $3)`,
        [subject, JSON.stringify({ messages: [{ role: 'user', content: text }] }), text],
      );
    };
    const replicaState = async () => (await request(t.http).get('/readyz').expect(200)).body;

    beforeAll(async () => {
      primary = new PrivatePostgres();
      await primary.init();
      replica = await primary.startReplica();
      t = await createTestApp({
        SERVICE_DATABASE_URL: primary.url(),
        SERVICE_AUTO_MIGRATE: 'true',
        SERVICE_DATABASE_POOL_SIZE: '4',
        SERVICE_READ_REPLICA_URLS: JSON.stringify([replica.url()]),
        SERVICE_READ_REPLICA_MAX_LAG: String(MAX_LAG_S),
        SERVICE_READ_YOUR_WRITES_WINDOW: '4',
      });
      pc = new Client({ connectionString: primary.url() });
      rc = new Client({ connectionString: replica.url() });
      await pc.connect();
      await rc.connect();
      await eventually('replica serving', 20_000, async () => (await replicaState()).checks.replicas?.[0]?.state === 'ok');
    }, 120_000);

    afterAll(async () => {
      await pc?.end().catch(() => undefined);
      await rc?.end().catch(() => undefined);
      await t?.close();
      await replica?.destroy();
      await primary?.destroy();
    });

    it('serves reads from the replica: a row it has not replayed yet is not seen', async () => {
      await insertDirect('seen-later', 'written behind the service');
      await eventually('replica replayed the row', 10_000, async () => (await rc.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 'seen-later'`)).rows[0].n === 1);
      await rc.query('SELECT pg_wal_replay_pause()');
      try {
        await insertDirect('seen-later', 'second row, not replayed');
        const before = await reads('replica');
        // Within the lag bound the paused standby still serves, and shows only what it replayed.
        expect((await timeline('seen-later')).episodes).toHaveLength(1);
        expect(await reads('replica')).toBe(before + 1);
      } finally {
        await rc.query('SELECT pg_wal_replay_resume()');
      }
      await eventually('replica caught up', 10_000, async () => (await timeline('seen-later')).episodes.length === 2);
    });

    it('skips a replica that lags past the bound (replay paused), reports it, and reads the primary', async () => {
      await rc.query('SELECT pg_wal_replay_pause()');
      try {
        // Read-your-writes: a subject just written is read from the primary at once.
        const id = await ingest('lag-ryw', 'my own write');
        const fenced = await reads('primary', 'unreplayed_write');
        expect((await timeline('lag-ryw')).episodes.map((e: { id: string }) => e.id)).toEqual([id]);
        expect(await reads('primary', 'unreplayed_write')).toBe(fenced + 1);

        // Behind the bound: reported, and even unfenced reads go to the primary.
        await insertDirect('lag-direct', 'behind the service');
        const ready = await eventually('replica reported lagging', 15_000, async () => {
          const body = await replicaState();
          return body.checks.replicas[0].state === 'lagging' ? body : null;
        });
        expect(ready.status).toBe('degraded');
        expect(ready.checks.replicas[0].lag_seconds).toBeGreaterThan(MAX_LAG_S);
        expect((await timeline('lag-direct')).episodes).toHaveLength(1);
        const scrape = (await request(t.http).get('/metrics').expect(200)).text;
        expect(scrape).toMatch(/memory_db_replica_up\{replica="replica-0"\} 0/);
        expect(scrape).toMatch(/memory_db_replica_lag_seconds\{replica="replica-0"\} [1-9]/);
      } finally {
        await rc.query('SELECT pg_wal_replay_resume()');
      }
      await eventually('replica back in service', 15_000, async () => (await replicaState()).checks.replicas[0].state === 'ok');
    });

    it('keeps read-your-writes under concurrent load while the standby applies 200 ms late', async () => {
      await rc.query(`ALTER SYSTEM SET recovery_min_apply_delay = '200ms'`);
      await rc.query('SELECT pg_reload_conf()');
      try {
        await insertDirect('ryw-cold', 'an old conversation about invoices');
        await eventually('cold subject replayed', 10_000, async () => (await rc.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 'ryw-cold'`)).rows[0].n === 1);
        const replicaBefore = await reads('replica');
        const stale: string[] = [];
        const writers = Array.from({ length: 6 }, async (_, w) => {
          const subject = `ryw-${w}`;
          const ids: string[] = [];
          for (let i = 0; i < 8; i++) {
            const token = `token${w}x${i}`;
            ids.push(await ingest(subject, `ticket ${token} about a refund`));
            const seen = (await timeline(subject)).episodes.map((e: { id: string }) => e.id);
            if (ids.some((id) => !seen.includes(id))) stale.push(`timeline ${subject} after ${token}`);
            const ctx = (await request(t.http).post('/v1/context').send({ subject_id: subject, task: `what about ${token}?`, max_tokens: 2000 }).expect(200)).body;
            if (!ctx.provenance.episode_ids.includes(ids[i])) stale.push(`context ${subject} after ${token}`);
            if (i % 4 === 3) {
              await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
              if ((await timeline(subject)).memories.length === 0) stale.push(`memories of ${subject} after compile`);
            }
          }
        });
        const reader = (async () => {
          for (let i = 0; i < 30; i++) expect((await timeline('ryw-cold')).episodes).toHaveLength(1);
        })();
        await Promise.all([...writers, reader]);
        expect(stale).toEqual([]);
        // The unwritten subject's reads (at least) were served by the replica.
        expect((await reads('replica')) - replicaBefore).toBeGreaterThanOrEqual(30);
      } finally {
        await rc.query(`ALTER SYSTEM RESET recovery_min_apply_delay`);
        await rc.query('SELECT pg_reload_conf()');
      }
    }, 120_000);

    it('loses the replica mid-run without a client error, and reports it down', async () => {
      await rc.end();
      let stop = false;
      const failures: string[] = [];
      const loops = Array.from({ length: 4 }, async (_, w) => {
        let i = 0;
        while (!stop) {
          const subject = w % 2 === 0 ? 'ryw-cold' : `down-${w}`;
          if (w % 2 === 1) await ingest(subject, `write ${i++}`);
          for (const res of [
            await request(t.http).get('/v1/timeline').query({ subject_id: subject }),
            await request(t.http).post('/v1/context').send({ subject_id: subject, task: 'invoices' }),
            await request(t.http).get('/v1/memories/search').query({ subject_id: subject, q: 'invoices' }),
            await request(t.http).get('/v1/subjects'),
          ]) {
            if (res.status !== 200) failures.push(`${res.status} ${res.text.slice(0, 200)}`);
          }
        }
      });
      await sleep(300);
      await replica.stop('immediate');
      await sleep(1500);
      stop = true;
      await Promise.all(loops);
      expect(failures).toEqual([]);
      const body = await replicaState();
      expect(body.status).toBe('degraded');
      expect(body.checks.replicas[0].state).toBe('down');
      expect((await request(t.http).get('/metrics').expect(200)).text).toMatch(/memory_db_replica_up\{replica="replica-0"\} 0/);
    }, 60_000);
  });
}
