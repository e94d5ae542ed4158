import { Client } from 'pg';
import * as advisoryLocks from 'src/common/db/advisory-locks';
import request from 'supertest';
import { SUBJECT_LOCK_KEY_SQL } from 'src/common/db/advisory-locks';
import { operatorScope } from 'src/common/db/tenant-scope';
import { snapshotCommand } from 'src/cli/snapshot.command';
import { loadConfig } from 'src/config/app-config';
import { SnapshotsCleanupScheduler } from 'src/modules/snapshots/snapshots-cleanup.scheduler';
import { SubjectLifecycleService } from 'src/modules/subjects/subject-lifecycle.service';
import { createTestApp, isPglite, TestApp, testEnv } from '../app-factory';
import { captureOutput } from '../cli-capture';

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message', 'request_id']);
  expect(res.body.error.code).toBe(code);
}

/** Runs a CLI command function with stdout/stderr captured. */
async function runCli(fn: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { value: code, stdout, stderr } = await captureOutput(fn);
  return { code, stdout, stderr };
}

describe('snapshot endpoints while ENABLE_SNAPSHOTS is false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: 'k-1' });
  });
  afterAll(() => t.close());

  it.each([
    ['get', '/admin/snapshots'],
    ['post', '/admin/snapshots/00000000-0000-4000-8000-000000000001/restore'],
    ['post', '/admin/snapshots/not-a-uuid/restore'],
    ['post', '/admin/snapshots/restore-by-name'],
    ['post', '/admin/cleanup?max_age_hours=-1'],
    ['post', '/admin/cleanup'],
    ['get', '/admin/snapshots/anything/else'],
  ])('answers %s %s like an unknown route: 401/403 without a valid key, 404 not_found before validation with one', async (method, path) => {
    const call = (p: string) => (request(t.http) as unknown as Record<string, (p: string) => request.Test>)[method](p);
    expectEnvelope(await call(path).set('X-API-Key', 'k-1').send({ bogus: 1 }), 404, 'not_found');
    // compat.md: a disabled feature's route tells an anonymous caller nothing an unknown one would not.
    expectEnvelope(await call(path), 401, 'missing_api_key');
    expectEnvelope(await call(path).set('X-API-Key', 'wrong'), 403, 'invalid_api_key');
    expectEnvelope(await call('/admin/no-such-route').set('X-API-Key', 'wrong'), 403, 'invalid_api_key');
  });

  it('answers 404 even for a malformed JSON body', async () => {
    const res = await request(t.http).post('/admin/snapshots/restore-by-name').set('X-API-Key', 'k-1').set('Content-Type', 'application/json').send('{"name": ');
    expectEnvelope(res, 404, 'not_found');
  });

  it('leaves the other admin endpoints alone', async () => {
    await request(t.http).get('/admin/tenant-audit').set('X-API-Key', 'k-1').expect(200);
  });
});

describe('snapshots', () => {
  let t: TestApp;
  const env = { SERVICE_ENABLE_SNAPSHOTS: 'true', SERVICE_REQUIRE_TENANT: 'true' };
  const snapshotCli = (args: string[]) => runCli(() => snapshotCommand(loadConfig(testEnv(env)), args));
  let e1: string;
  let e2: string;

  beforeAll(async () => {
    t = await createTestApp(env);
  });
  afterAll(() => t.close());

  /** The embedded engine serves one connection: the app lets go of it while a CLI command runs. */
  async function withAppClosed<T>(fn: () => Promise<T>): Promise<T> {
    await t.close();
    try {
      return await fn();
    } finally {
      t = await createTestApp(env, { reset: false });
    }
  }

  const post = (subject: string, tenant: string, content: string) =>
    request(t.http)
      .post('/v1/episodes')
      .set('X-Tenant-ID', tenant)
      .send({ subject_id: subject, source: 'chat', type: 'conversation', payload: { messages: [{ role: 'user', content }] }, session_id: 's-1' })
      .expect(201)
      .then((r) => r.body.id as string);

  describe('create (CLI), list and restore', () => {
    let v1: Record<string, unknown>;
    let v2: Record<string, unknown>;

    beforeAll(async () => {
      e1 = await post('live_demo', 'acme', 'My name is Juno');
      e2 = await post('live_demo', 'acme', 'I prefer tea');
      // Spread the episodes an hour apart so the restore's time shift is visible.
      await t.ds.query(`UPDATE episodes SET created_at = created_at - interval '1 hour', last_compiled_at = now() WHERE id = $1`, [e1]);
      const [fact] = await t.ds.query(
        `INSERT INTO memories (tenant_id, subject_id, kind, content, confidence, source_episode_ids, embedding, sensitivity_labels)
         VALUES ('acme', 'live_demo', 'profile_fact', 'Prefers tea', 1, $1::uuid[], '{0.5,0.25}', '{diet}') RETURNING id`,
        [[e1, e2]],
      );
      await t.ds.query(
        `INSERT INTO memories (tenant_id, subject_id, kind, content, confidence, source_episode_ids, status, superseded_by, valid_to)
         VALUES ('acme', 'live_demo', 'profile_fact', 'Prefers coffee', 0.5, $1::uuid[], 'superseded', $2, now())`,
        [[e1], fact.id],
      );
      await post('live_demo', 'globex', 'another tenant');
    });

    it('creates numbered versions from a subject with the CLI, copying only the filtered tenant', async () => {
      const first = await withAppClosed(() => snapshotCli(['create', 'live_demo', '--name', 'demo', '--tenant', 'acme', '--metadata', '{"reason": "before upgrade"}']));
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/created _snapshot\/demo\/v1: 2 episode\(s\), 2 memory/);
      v1 = JSON.parse(first.stdout);
      expect(v1).toMatchObject({
        name: 'demo', version: 1, source_subject_id: 'live_demo', snapshot_subject_id: '_snapshot/demo/v1',
        tenant_id: 'acme', metadata: { reason: 'before upgrade' }, episode_count: 2, memory_count: 2,
      });
      const second = await withAppClosed(() => snapshotCli(['create', 'live_demo', '--name', 'demo', '--tenant', 'acme']));
      v2 = JSON.parse(second.stdout);
      expect(v2).toMatchObject({ version: 2, snapshot_subject_id: '_snapshot/demo/v2' });
      const copies = await t.ds.query(`SELECT id, tenant_id, subject_id, created_at FROM episodes WHERE subject_id = '_snapshot/demo/v1' ORDER BY created_at`);
      expect(copies).toHaveLength(2);
      expect(copies.map((c: { id: string }) => c.id)).not.toContain(e1);
      expect(copies.every((c: { tenant_id: string }) => c.tenant_id === 'acme')).toBe(true);
      // The copy's memories point at the copy's episodes.
      const [copiedFact] = await t.ds.query(`SELECT source_episode_ids FROM memories WHERE subject_id = '_snapshot/demo/v1' AND content = 'Prefers tea'`);
      expect(copiedFact.source_episode_ids).toEqual(copies.map((c: { id: string }) => c.id));
      // Labels go with the copy, so the tenant's policy still governs it when restored.
      const [labels] = await t.ds.query(`SELECT sensitivity_labels FROM memories WHERE subject_id = '_snapshot/demo/v1' AND content = 'Prefers tea'`);
      expect(labels.sensitivity_labels).toEqual(['diet']);
    });

    it('refuses an unusable name, a missing subject and bad metadata', async () => {
      await withAppClosed(async () => {
        await expect(snapshotCli(['create', 'live_demo', '--name', 'a/b'])).rejects.toThrow(/name/);
        await expect(snapshotCli(['create', 'nobody', '--name', 'x'])).rejects.toThrow(/no episodes or memories/);
        await expect(snapshotCli(['create', 'live_demo', '--name', 'x', '--metadata', '[1]'])).rejects.toThrow(/metadata/);
        await expect(snapshotCli(['create', 'live_demo'])).rejects.toThrow(/usage/);
      });
      const [row] = await t.ds.query(`SELECT count(*)::int AS n FROM snapshots`);
      expect(row.n).toBe(2);
    });

    it('lists snapshots newest first, filtered by tenant', async () => {
      const res = await request(t.http).get('/admin/snapshots').expect(200);
      expect(res.body.snapshots.map((s: { version: number }) => s.version)).toEqual([2, 1]);
      for (const key of ['id', 'name', 'version', 'source_subject_id', 'snapshot_subject_id', 'metadata', 'episode_count', 'memory_count', 'created_at']) {
        expect(res.body.snapshots[0]).toHaveProperty(key);
      }
      expect((await request(t.http).get('/admin/snapshots?tenant_id=globex').expect(200)).body).toEqual({ snapshots: [] });
    });

    it('restores a snapshot by id: new ids, remapped references, newest episode at now, provenance', async () => {
      const before = Date.now();
      const res = await request(t.http).post(`/admin/snapshots/${v1.id}/restore`).send({ target_subject_id: 'restored/one' }).expect(200);
      expect(res.body).toEqual({ snapshot_id: v1.id, name: 'demo', version: 1, target_subject_id: 'restored/one', episodes_restored: 2, memories_restored: 2, receipts_restored: 0 });
      const episodes = await t.ds.query(`SELECT id, tenant_id, provenance, created_at FROM episodes WHERE subject_id = 'restored/one' ORDER BY created_at`);
      const copies = await t.ds.query(`SELECT id FROM episodes WHERE subject_id = '_snapshot/demo/v1' ORDER BY created_at`);
      expect(episodes.map((e: { provenance: Record<string, unknown> }) => e.provenance)).toEqual(
        copies.map((c: { id: string }) => ({ restored_from_snapshot: v1.id, original_episode_id: c.id })),
      );
      expect(episodes.every((e: { tenant_id: string }) => e.tenant_id === 'acme')).toBe(true);
      const newest = new Date(episodes[1].created_at).getTime();
      expect(newest).toBeGreaterThanOrEqual(before - 1);
      expect(newest).toBeLessThanOrEqual(Date.now() + 1);
      expect(newest - new Date(episodes[0].created_at).getTime()).toBeGreaterThanOrEqual(3_599_000);
      const memories = await t.ds.query(`SELECT id, content, source_episode_ids, superseded_by, metadata FROM memories WHERE subject_id = 'restored/one' ORDER BY content DESC`);
      const [tea, coffee] = memories;
      expect(tea.source_episode_ids).toEqual(episodes.map((e: { id: string }) => e.id));
      expect(coffee.source_episode_ids).toEqual([episodes[0].id]);
      expect(coffee.superseded_by).toBe(tea.id);
      expect(tea.metadata).toMatchObject({ restored_from_snapshot: v1.id });
      expect((await t.ds.query(`SELECT sensitivity_labels FROM memories WHERE id = $1`, [tea.id]))[0].sensitivity_labels).toEqual(['diet']);
    });

    it('restores the latest version by name', async () => {
      const res = await request(t.http).post('/admin/snapshots/restore-by-name').send({ name: 'demo', target_subject_id: 'restored/two' }).expect(200);
      expect(res.body).toMatchObject({ snapshot_id: v2.id, version: 2, episodes_restored: 2, memories_restored: 2, receipts_restored: 0 });
    });

    it("takes the target subject's compile lock once, before anything is read or written", async () => {
      // A pass-through spy: the lock is really taken, each call counted.
      const locks = jest.spyOn(advisoryLocks, 'lockSubject');
      try {
        await request(t.http).post('/admin/snapshots/restore-by-name').send({ name: 'demo', target_subject_id: 'restored/locked' }).expect(200);
        expect(locks.mock.calls.map(([, , subjectId]) => subjectId)).toEqual(['restored/locked']);
      } finally {
        locks.mockRestore();
      }
    });

    it('restores through the CLI too', async () => {
      const out = await withAppClosed(() => snapshotCli(['restore', '--name', 'demo', '--target', 'restored/cli', '--tenant', 'acme']));
      expect(JSON.parse(out.stdout)).toMatchObject({ version: 2, target_subject_id: 'restored/cli', episodes_restored: 2 });
    });

    it('answers unknown ids and names with 404, another tenant\'s snapshot with 404, bad input with 422', async () => {
      expectEnvelope(await request(t.http).post('/admin/snapshots/00000000-0000-4000-8000-000000000001/restore').send({ target_subject_id: 'x' }), 404, 'not_found');
      expectEnvelope(await request(t.http).post('/admin/snapshots/restore-by-name').send({ name: 'nope', target_subject_id: 'x' }), 404, 'not_found');
      expectEnvelope(await request(t.http).post(`/admin/snapshots/${v1.id}/restore?tenant_id=globex`).send({ target_subject_id: 'x' }), 404, 'not_found');
      expectEnvelope(await request(t.http).post('/admin/snapshots/restore-by-name?tenant_id=globex').send({ name: 'demo', target_subject_id: 'x' }), 404, 'not_found');
      expectEnvelope(await request(t.http).post('/admin/snapshots/not-a-uuid/restore').send({ target_subject_id: 'x' }), 422, 'validation_error');
      expectEnvelope(await request(t.http).post(`/admin/snapshots/${v1.id}/restore`).send({}), 422, 'validation_error');
      expectEnvelope(await request(t.http).post(`/admin/snapshots/${v1.id}/restore`).send({ target_subject_id: '_snapshot/demo/v9' }), 422, 'validation_error');
      expectEnvelope(await request(t.http).get('/admin/snapshots/anything/else'), 404, 'not_found');
    });
  });

  describe('cleanup', () => {
    const subjects = async () =>
      (await t.ds.query(`SELECT coalesce(tenant_id, '-') || ':' || subject_id AS s FROM episodes UNION SELECT coalesce(tenant_id, '-') || ':' || subject_id FROM memories`))
        .map((r: { s: string }) => r.s)
        .sort();

    async function seed(tenant: string | null, subject: string, hoursAgo: number) {
      await t.ds.query(
        `INSERT INTO episodes (tenant_id, subject_id, source, type, payload, created_at) VALUES ($1, $2, 'chat', 'note', '{}', now() - make_interval(hours => $3))`,
        [tenant, subject, hoursAgo],
      );
    }

    beforeEach(async () => {
      await t.ds.query('TRUNCATE episodes, memories, compile_jobs, resolutions, health_cache, health_history');
      await seed('acme', 'live_old', 48);
      await seed('globex', 'live_old', 48);
      await seed(null, 'live_legacy', 30);
      await seed('acme', 'live_recent', 48);
      // A recent memory keeps live_recent alive although its episode is old.
      await t.ds.query(`INSERT INTO memories (tenant_id, subject_id, kind, content) VALUES ('acme', 'live_recent', 'profile_fact', 'x')`);
      await seed('acme', 'liveXold', 48);
      await seed('acme', '%old', 48);
      await seed('acme', '_snapshot/keep/v1', 1000);
      await seed('acme', 'other', 1000);
      await t.ds.query(`INSERT INTO compile_jobs (tenant_id, subject_id, status) VALUES ('acme', 'live_old', 'completed'), ('acme', 'other', 'completed')`);
      await t.ds.query(`INSERT INTO resolutions (tenant_id, subject_id, session_id, status) VALUES ('acme', 'live_old', 's', 'open')`);
      await t.ds.query(`INSERT INTO health_cache (tenant_id, subject_id, state, score) VALUES ('acme', 'live_old', 'healthy', 100)`);
      await t.ds.query(`INSERT INTO health_history (tenant_id, subject_id, state, score) VALUES ('acme', 'live_old', 'watch', 60), ('acme', 'live_old', 'healthy', 100)`);
    });

    it('deletes live_ subjects older than 24 hours by default, with every row stored for them', async () => {
      const res = await request(t.http).post('/admin/cleanup').expect(200);
      expect(res.body).toEqual({ subjects_cleaned: 3 });
      expect(await subjects()).toEqual(['acme:%old', 'acme:_snapshot/keep/v1', 'acme:liveXold', 'acme:live_recent', 'acme:other'].sort());
      expect((await t.ds.query(`SELECT subject_id FROM compile_jobs`)).map((r: { subject_id: string }) => r.subject_id)).toEqual(['other']);
      expect(await t.ds.query(`SELECT 1 FROM resolutions UNION ALL SELECT 1 FROM health_cache UNION ALL SELECT 1 FROM health_history`)).toEqual([]);
    });

    it('filters by tenant, matches the prefix literally and honours max_age_hours', async () => {
      expect((await request(t.http).post('/admin/cleanup?tenant_id=acme').expect(200)).body).toEqual({ subjects_cleaned: 1 });
      expect(await subjects()).toContain('globex:live_old');
      expect(await subjects()).toContain('-:live_legacy');
      expect((await request(t.http).post('/admin/cleanup?prefix=%25&max_age_hours=1').expect(200)).body).toEqual({ subjects_cleaned: 1 });
      expect(await subjects()).not.toContain('acme:%old');
      expect((await request(t.http).post('/admin/cleanup?max_age_hours=72').expect(200)).body).toEqual({ subjects_cleaned: 0 });
      expect((await request(t.http).post('/admin/cleanup?max_age_hours=1e300').expect(200)).body).toEqual({ subjects_cleaned: 0 });
    });

    it('never deletes _snapshot/ subjects', async () => {
      expect((await request(t.http).post('/admin/cleanup?prefix=_&max_age_hours=0').expect(200)).body).toEqual({ subjects_cleaned: 0 });
      expect((await request(t.http).post('/admin/cleanup?prefix=_snapshot/&max_age_hours=0').expect(200)).body).toEqual({ subjects_cleaned: 0 });
      expect(await subjects()).toContain('acme:_snapshot/keep/v1');
    });

    it.each(['max_age_hours=-1', 'max_age_hours=abc', 'max_age_hours=Infinity', 'max_age_hours=', 'prefix='])('answers %s with 422', async (q) => {
      expectEnvelope(await request(t.http).post(`/admin/cleanup?${q}`), 422, 'validation_error');
    });

    it('erases each stale subject under its compile lock, its own tenant only, checking it is still stale', async () => {
      const lifecycle = t.app.get(SubjectLifecycleService);
      const cutoff = new Date(Date.now() - 24 * 3_600_000);
      const held = (em: { query: (s: string) => Promise<{ n: number }[]> }) =>
        em.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted`).then((r) => r[0].n);
      // Candidates: stale in one of the tables (live_recent's episode is old, its memory is not).
      const stale = await t.ds.transaction((em) => lifecycle.staleSubjects(em, operatorScope(), 'live_', cutoff));
      expect(stale.map((k) => `${k.tenant_id ?? '-'}:${k.subject_id}`).sort()).toEqual(['-:live_legacy', 'acme:live_old', 'acme:live_recent', 'globex:live_old']);
      await t.ds.transaction(async (em) => {
        expect(await lifecycle.eraseIfStale(em, operatorScope(), { tenant_id: 'acme', subject_id: 'live_old' }, cutoff)).toBe(true);
        expect(await held(em)).toBe(1);
        // Checked again under the lock: its recent memory keeps it.
        expect(await lifecycle.eraseIfStale(em, operatorScope(), { tenant_id: 'acme', subject_id: 'live_recent' }, cutoff)).toBe(false);
      });
      expect(await subjects()).toEqual(expect.arrayContaining(['globex:live_old', '-:live_legacy', 'acme:live_recent']));
      expect(await subjects()).not.toContain('acme:live_old');
      // The NULL-tenant subject is erased alone, not every tenant's subject of that id.
      await seed('acme', 'live_legacy', 1);
      await t.ds.transaction((em) => lifecycle.eraseIfStale(em, operatorScope(), { tenant_id: null, subject_id: 'live_legacy' }, cutoff));
      expect(await subjects()).toContain('acme:live_legacy');
      expect(await subjects()).not.toContain('-:live_legacy');
    });

    it('waits for a compile holding the subject lock before deleting the subject', async () => {
      // PGlite serves one connection: no second session can hold the lock, so the held-lock
      // count above is that engine's proof; PostgreSQL shows the waiting for real.
      if (isPglite()) return;
      const compile = new Client({ connectionString: process.env.TEST_DB_URL });
      await compile.connect();
      try {
        await compile.query('BEGIN');
        await compile.query(`SELECT pg_advisory_xact_lock(${SUBJECT_LOCK_KEY_SQL})`, ['acme', 'live_old']);
        let finished = false;
        const cleanup = request(t.http).post('/admin/cleanup').then((res) => {
          finished = true;
          return res;
        });
        await new Promise((r) => setTimeout(r, 700));
        expect(finished).toBe(false);
        expect(await subjects()).toContain('acme:live_old');
        await compile.query('COMMIT');
        expect((await cleanup).body).toEqual({ subjects_cleaned: 3 });
        expect(await subjects()).not.toContain('acme:live_old');
      } finally {
        await compile.end();
      }
    });

    it('runs the same cleanup from the hourly task', async () => {
      await t.app.get(SnapshotsCleanupScheduler).runOnce();
      expect(await subjects()).not.toContain('acme:live_old');
      expect(await subjects()).toContain('acme:live_recent');
    });
  });
});
