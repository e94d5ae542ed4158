import request from 'supertest';
import { HealthMarksSweeper } from 'src/modules/support/health-marks.sweeper';
import { SupportService } from 'src/modules/support/support.service';
import { createTestApp, TestApp } from '../app-factory';

/**
 * Health recomputation after ingestion used to be remembered only in memory: a process that
 * died between an ingest's commit and its refresh lost the subject.health_* event of that change
 * until somebody read the subject. The mark is now a row written with the episode.
 */
describe('durable health refresh marks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  const marks = () => t.ds.query(`SELECT tenant_id, subject_id FROM health_refresh_marks ORDER BY subject_id`);
  const healthEvents = (subject: string) =>
    t.ds.query(
      `SELECT event, tenant_id, payload->'data'->>'previous_state' AS previous, payload->'data'->>'current_state' AS current
       FROM webhook_events WHERE event LIKE 'subject.health_%' AND payload->'data'->>'subject_id' = $1`,
      [subject],
    );
  /** One INSERT statement of episodes (tenant, subject, session), as any writer's commit leaves them. */
  const storeEpisodes = (rows: [string, string, string | null][]) =>
    t.ds.query(
      `INSERT INTO episodes (tenant_id, subject_id, session_id, source, type, payload, content_text)
       SELECT r->>0, r->>1, r->>2, 'user', 'conversation', '{"messages": []}', 'hello' FROM jsonb_array_elements($1::jsonb) AS r`,
      [JSON.stringify(rows)],
    );
  const customer = (subject: string, session: string | null, content: string) => ({
    subject_id: subject,
    ...(session === null ? {} : { session_id: session }),
    source: 'user',
    type: 'conversation',
    payload: { messages: [{ role: 'user', content }] },
  });

  it('recomputes, after a crash, the health change of episodes whose in-memory refresh never ran, emitting its event once', async () => {
    // Two customer sessions idle for 3 days, SLA breached: at_risk.
    // Written as a process that died right after its commit leaves them: stored, never refreshed.
    for (const session of ['a', 'b']) {
      await t.ds.query(
        `INSERT INTO episodes (tenant_id, subject_id, session_id, source, type, payload, content_text, created_at)
         VALUES ('acme', 'crashed', $1, 'user', 'conversation', $2, 'invoice missing', now() - interval '3 days')`,
        [session, JSON.stringify({ messages: [{ role: 'user', content: 'invoice missing' }] })],
      );
    }
    expect(await marks()).toEqual([{ tenant_id: 'acme', subject_id: 'crashed' }]);
    expect(await healthEvents('crashed')).toEqual([]);

    // What the next start does (every mark, whatever its age).
    expect(await t.app.get(HealthMarksSweeper).runOnce(0)).toBe(1);
    expect(await healthEvents('crashed')).toEqual([{ event: 'subject.health_degraded', tenant_id: 'acme', previous: 'healthy', current: 'at_risk' }]);
    expect(await t.ds.query(`SELECT state FROM health_cache WHERE subject_id = 'crashed'`)).toEqual([{ state: 'at_risk' }]);
    expect(await marks()).toEqual([]);
    expect(await t.app.get(HealthMarksSweeper).runOnce(0)).toBe(0);
    expect(await healthEvents('crashed')).toHaveLength(1);
  });

  it('leaves young marks to the live refresh: the periodic sweep takes only marks older than 30 s', async () => {
    await storeEpisodes([['acme', 'young', 's1']]);
    expect(await t.app.get(HealthMarksSweeper).runOnce(30_000)).toBe(0);
    await t.ds.query(`UPDATE health_refresh_marks SET marked_at = now() - interval '31 seconds' WHERE subject_id = 'young'`);
    expect(await t.app.get(HealthMarksSweeper).runOnce(30_000)).toBe(1);
    expect(await marks()).toEqual([]);
  });

  it('marks each subject of a statement once, only for episodes with a session', async () => {
    await storeEpisodes([
      ['acme', 'multi', 's1'],
      ['acme', 'multi', 's2'],
      ['beta', 'multi', 's1'],
      ['acme', 'no-session', null],
    ]);
    expect(await marks()).toEqual([
      { tenant_id: 'acme', subject_id: 'multi' },
      { tenant_id: 'beta', subject_id: 'multi' },
    ]);
    await t.app.get(HealthMarksSweeper).runOnce(0);
    expect(await marks()).toEqual([]);
  });

  it('writes the mark with an ingest through the API, and the live refresh consumes it', async () => {
    await request(t.http)
      .post('/v1/episodes/batch')
      .set('X-Tenant-ID', 'acme')
      .send({ episodes: [customer('api', 's1', 'one'), customer('api', 's2', 'two')] })
      .expect(201);
    await t.app.get(SupportService).drainHealthRefresh();
    expect(await marks()).toEqual([]);
    // The mark was there: the refresh that consumed it cached the subject's health.
    expect(await t.ds.query(`SELECT tenant_id FROM health_cache WHERE subject_id = 'api'`)).toEqual([{ tenant_id: 'acme' }]);
  });

  it('drops the marks of snapshot copies without computing their health or emitting events', async () => {
    await storeEpisodes([['acme', '_snapshot/demo/v1', 's1']]);
    expect(await marks()).toEqual([{ tenant_id: 'acme', subject_id: '_snapshot/demo/v1' }]);
    expect(await t.app.get(HealthMarksSweeper).runOnce(0)).toBe(0);
    expect(await marks()).toEqual([]);
    expect(await t.ds.query(`SELECT subject_id FROM health_cache WHERE subject_id = '_snapshot/demo/v1'`)).toEqual([]);
  });

  it('consumes the mark on a health read of its tenant only, and removes it with the subject', async () => {
    await storeEpisodes([
      ['acme', 'read', 's1'],
      ['beta', 'read', 's1'],
    ]);
    await request(t.http).get('/v1/subjects/read/health').set('X-Tenant-ID', 'acme').expect(200);
    expect(await marks()).toEqual([{ tenant_id: 'beta', subject_id: 'read' }]);
    await request(t.http).delete('/v1/subjects/read').set('X-Tenant-ID', 'beta').expect(200);
    expect(await marks()).toEqual([]);
  });
});
