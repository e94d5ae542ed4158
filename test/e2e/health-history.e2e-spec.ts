import request from 'supertest';
import { SupportService } from 'src/modules/support/support.service';
import { createTestApp, TestApp } from '../app-factory';

const customer = (subject: string, session: string, content: string) => ({
  subject_id: subject,
  session_id: session,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content }] },
});

/** Ingestion marks a subject's health for recomputation shortly after the commit; run it now. */
const healthSettled = (t: TestApp) => t.app.get(SupportService).drainHealthRefresh();

type Point = { at: string; score: number; state: string };
const trend = (points: Point[]) => points.map((p) => [p.score, p.state]);

describe('GET /v1/subjects/{id}/health/history', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('appends a point only when a recomputation changes the score or state, oldest first, and the subject deletion removes them', async () => {
    const sid = 'trend/ada';
    const path = `/v1/subjects/${encodeURIComponent(sid)}`;
    expect((await request(t.http).get(`${path}/health/history`).expect(200)).body).toEqual({ subject_id: sid, points: [] });

    await request(t.http).post('/v1/episodes').send(customer(sid, 's1', 'Where is my invoice?')).expect(201);
    await healthSettled(t);
    await request(t.http).get(`${path}/health`).expect(200);
    await request(t.http).get(`${path}/health`).expect(200);
    let res = await request(t.http).get(`${path}/health/history`).expect(200);
    expect(trend(res.body.points)).toEqual([[85, 'healthy']]);

    // A second open session with urgent wording: 100 - 30 - 20 = 50, on watch.
    await request(t.http).post('/v1/episodes').send(customer(sid, 's2', 'Production is down, please help')).expect(201);
    await healthSettled(t);
    await request(t.http).post('/v1/resolutions').send({ subject_id: sid, session_id: 's1', status: 'resolved' }).expect(200);
    res = await request(t.http).get(`${path}/health/history`).expect(200);
    const health = (await request(t.http).get(`${path}/health`).expect(200)).body;
    expect(trend(res.body.points)).toEqual([[85, 'healthy'], [50, 'watch'], [health.score, health.state]]);
    const times = res.body.points.map((p: Point) => Date.parse(p.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(trend((await request(t.http).get(`${path}/health/history?limit=2`).expect(200)).body.points)).toEqual([[50, 'watch'], [health.score, health.state]]);

    const deleted = await request(t.http).delete(path).expect(200);
    expect(deleted.body.health_history_deleted).toBe(3);
    expect(deleted.body.deletion_receipt.counts.health_history).toBe(3);
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM health_history WHERE subject_id = $1`, [sid]))[0].n).toBe(0);
    expect((await request(t.http).get(`${path}/health/history`).expect(200)).body.points).toEqual([]);
  });

  it('keeps the newest 200 points of a subject, deleting older ones in the append', async () => {
    const sid = 'trend/long';
    // 205 older points (scores 1..205, alternating states), then a recomputation appends one more.
    await t.ds.query(
      `INSERT INTO health_history (tenant_id, subject_id, score, state, recorded_at)
       SELECT NULL, $1, i, CASE WHEN i % 2 = 0 THEN 'watch' ELSE 'at_risk' END, now() - make_interval(mins => 300 - i)
       FROM generate_series(1, 205) i`,
      [sid],
    );
    await t.ds.query(`INSERT INTO health_history (tenant_id, subject_id, score, state) VALUES ('other', $1, 1, 'at_risk')`, [sid]);
    await request(t.http).post('/v1/episodes').send(customer(sid, 's1', 'Where is my invoice?')).expect(201);
    await healthSettled(t);
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM health_history WHERE tenant_id IS NULL AND subject_id = $1`, [sid]))[0].n).toBe(200);
    // Another tenant's point of the same id is not this subject's and stays.
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM health_history WHERE tenant_id = 'other'`))[0].n).toBe(1);

    const path = `/v1/subjects/${encodeURIComponent(sid)}/health/history`;
    const all = (await request(t.http).get(`${path}?limit=200`).expect(200)).body.points as Point[];
    expect(all).toHaveLength(200);
    expect(all[0].score).toBe(7);
    expect(all[198].score).toBe(205);
    expect(all[199]).toMatchObject({ score: 85, state: 'healthy' });
    const page = (await request(t.http).get(path).expect(200)).body.points as Point[];
    expect(page).toEqual(all.slice(150));

    for (const bad of ['0', '201', 'x', '1.5']) {
      const res = await request(t.http).get(`${path}?limit=${bad}`).expect(422);
      expect(res.body.error.details.map((d: { loc: string[] }) => d.loc)).toContainEqual(['query', 'limit']);
    }
  });
});

describe('health history under tenant isolation', () => {
  let t: TestApp;
  const A = { 'X-Tenant-ID': 'tenant-a' };
  const B = { 'X-Tenant-ID': 'tenant-b' };
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it("answers another tenant's subject with no points, and a tenant's deletion leaves the other's history", async () => {
    const sid = 'shared-trend';
    const path = `/v1/subjects/${sid}`;
    await request(t.http).post('/v1/episodes').set(A).send(customer(sid, 's1', 'Where is my invoice?')).expect(201);
    await request(t.http).post('/v1/episodes').set(A).send(customer(sid, 's2', 'Refund my order')).expect(201);
    await healthSettled(t);
    await request(t.http).get(`${path}/health`).set(A).expect(200);
    expect(trend((await request(t.http).get(`${path}/health/history`).set(A).expect(200)).body.points)).toEqual([[70, 'healthy']]);
    expect((await request(t.http).get(`${path}/health/history`).set(B).expect(200)).body).toEqual({ subject_id: sid, points: [] });
    await request(t.http).get(`${path}/health/history`).expect(400);

    await request(t.http).post('/v1/episodes').set(B).send(customer(sid, 's9', 'Hello there')).expect(201);
    await healthSettled(t);
    expect(trend((await request(t.http).get(`${path}/health/history`).set(B).expect(200)).body.points)).toEqual([[85, 'healthy']]);
    expect((await request(t.http).delete(path).set(B).expect(200)).body.health_history_deleted).toBe(1);
    expect(trend((await request(t.http).get(`${path}/health/history`).set(A).expect(200)).body.points)).toEqual([[70, 'healthy']]);
  });
});
