import request from 'supertest';
import { createTestApp, TestApp } from '../app-factory';

const MASTER = 'master-key-of-the-webhook-list-spec';
const operator = { 'X-API-Key': MASTER };

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, request_id: expect.any(String) });
}

interface Seed {
  tenant: string | null;
  event: string;
  status: 'pending' | 'delivered' | 'dead_letter';
  subject: string;
  /** Seconds before now the event was created. */
  age: number;
  error?: string;
}

/** Events in the states a worker leaves them, at known creation times (one statement per row). */
async function seed(t: TestApp, rows: Seed[]): Promise<string[]> {
  const ids: string[] = [];
  for (const r of rows) {
    const payload = { event: r.event, timestamp: new Date().toISOString(), data: { tenant_id: r.tenant, subject_id: r.subject } };
    const [row] = await t.ds.query(
      `INSERT INTO webhook_events (tenant_id, event, payload, status, attempts, last_error, last_status_code, created_at, next_attempt_at, delivered_at)
       VALUES ($1, $2, $3::jsonb, $4::varchar, CASE WHEN $4::varchar = 'pending' THEN 0 ELSE 1 END, $5, CASE WHEN $4::varchar = 'dead_letter' THEN 410 END,
         now() - make_interval(secs => $6), now() - make_interval(secs => $6), CASE WHEN $4::varchar = 'delivered' THEN now() END)
       RETURNING id`,
      [r.tenant, r.event, JSON.stringify(payload), r.status, r.error ?? (r.status === 'dead_letter' ? 'HTTP 410' : null), r.age],
    );
    ids.push(row.id);
  }
  return ids;
}

/** Every page of a listing, following next_cursor. */
async function allPages(t: TestApp, query: string): Promise<{ pages: number; ids: string[] }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: request.Response = await request(t.http).get(`/admin/webhooks?${query}${cursor ? `&cursor=${cursor}` : ''}`).set(operator).expect(200);
    pages += 1;
    ids.push(...res.body.events.map((e: { id: string }) => e.id));
    cursor = res.body.next_cursor;
  } while (cursor !== null && pages < 50);
  return { pages, ids };
}

describe('GET /admin/webhooks', () => {
  let t: TestApp;
  // Seeded oldest last; `ids` in seed order, so newest first is the order of ascending age.
  let ids: string[];
  beforeAll(async () => {
    // The smallest page budget the config allows: three 40 kB errors cannot share one page.
    t = await createTestApp({ SERVICE_API_KEY: MASTER, SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SERVICE_READ_PAGE_BYTES: '65536' });
    ids = await seed(t, [
      { tenant: 'acme', event: 'episode.created', status: 'dead_letter', subject: 'ann', age: 10 },
      { tenant: 'acme', event: 'memory.created', status: 'delivered', subject: 'ann', age: 20 },
      { tenant: 'globex', event: 'episode.created', status: 'dead_letter', subject: 'bob', age: 30 },
      { tenant: 'acme', event: 'episode.created', status: 'pending', subject: 'bob', age: 40 },
      { tenant: null, event: 'episode.created', status: 'delivered', subject: 'ann', age: 50 },
    ]);
  });
  afterAll(() => t.close());

  it('lists events newest first in the detail view’s shape without the payload', async () => {
    const res = await request(t.http).get('/admin/webhooks').set(operator).expect(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.events.map((e: { id: string }) => e.id)).toEqual(ids);
    const detail = await request(t.http).get(`/admin/webhooks/${ids[0]}`).set(operator).expect(200);
    const { payload, ...summary } = detail.body;
    expect(payload.data.subject_id).toBe('ann');
    expect(res.body.events[0]).toEqual(summary);
    expect(res.body.events[0]).toMatchObject({ status: 'dead_letter', last_status_code: 410, last_error: 'HTTP 410', tenant_id: 'acme', next_attempt_at: null });
    expect(res.body.events[3]).toMatchObject({ status: 'pending', next_attempt_at: expect.any(String) });
  });

  it('filters by status, event name, subject and tenant, alone and together', async () => {
    const list = async (q: string) => (await request(t.http).get(`/admin/webhooks?${q}`).set(operator).expect(200)).body.events.map((e: { id: string }) => e.id);
    expect(await list('status=dead_letter')).toEqual([ids[0], ids[2]]);
    expect(await list('status=delivered')).toEqual([ids[1], ids[4]]);
    expect(await list('event=memory.created')).toEqual([ids[1]]);
    expect(await list('subject_id=bob')).toEqual([ids[2], ids[3]]);
    expect(await list('status=dead_letter&subject_id=ann&event=episode.created')).toEqual([ids[0]]);
    expect(await list('event=no.such')).toEqual([]);
  });

  it('a tenant filter shows that tenant’s events only (no NULL-tenant rows), on every page', async () => {
    const acme = await allPages(t, 'tenant_id=acme&limit=1');
    expect(acme).toEqual({ pages: 3, ids: [ids[0], ids[1], ids[3]] });
    const globex = await request(t.http).get('/admin/webhooks?tenant_id=globex&status=dead_letter').set(operator).expect(200);
    expect(globex.body.events).toEqual([expect.objectContaining({ id: ids[2], tenant_id: 'globex' })]);
    const none = await request(t.http).get('/admin/webhooks?tenant_id=initech').set(operator).expect(200);
    expect(none.body).toEqual({ events: [], next_cursor: null });
  });

  it('pages with next_cursor, each event once, and keeps the filters across pages', async () => {
    const first = await request(t.http).get('/admin/webhooks?limit=2').set(operator).expect(200);
    expect(first.body.events.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await allPages(t, 'limit=2')).toEqual({ pages: 3, ids });
    expect(await allPages(t, 'limit=1&status=delivered')).toEqual({ pages: 2, ids: [ids[1], ids[4]] });
  });

  it('stops a page at the byte budget (always at least one event) and continues after it', async () => {
    const big = await seed(t, [
      { tenant: 'wide', event: 'episode.created', status: 'dead_letter', subject: 'w', age: 1, error: 'x'.repeat(40_000) },
      { tenant: 'wide', event: 'episode.created', status: 'dead_letter', subject: 'w', age: 2, error: 'y'.repeat(40_000) },
      { tenant: 'wide', event: 'episode.created', status: 'dead_letter', subject: 'w', age: 3, error: 'z'.repeat(40_000) },
    ]);
    const first = await request(t.http).get('/admin/webhooks?tenant_id=wide&limit=10').set(operator).expect(200);
    // 40 kB before the second event is under the 64 kB budget; 80 kB before the third is not.
    expect(first.body.events.map((e: { id: string }) => e.id)).toEqual(big.slice(0, 2));
    expect(first.body.next_cursor).not.toBeNull();
    expect(await allPages(t, 'tenant_id=wide&limit=10')).toEqual({ pages: 2, ids: big });
    await t.ds.query(`DELETE FROM webhook_events WHERE tenant_id = 'wide'`);
  });

  it('lists a real event (an ingested episode) under its subject, and a requeued dead letter as pending', async () => {
    await request(t.http).post('/v1/episodes').set(operator).send({ subject_id: 'real-one', source: 'user', type: 'note', payload: { text: 'hi' } }).expect(201);
    const res = await request(t.http).get('/admin/webhooks?subject_id=real-one').set(operator).expect(200);
    expect(res.body.events).toEqual([expect.objectContaining({ event: 'episode.created', status: 'pending', attempts: 0 })]);
    await request(t.http).post('/admin/webhooks/dead-letters/requeue').set(operator).send({ event_ids: [ids[2]] }).expect(200);
    const dead = await request(t.http).get('/admin/webhooks?status=dead_letter').set(operator).expect(200);
    expect(dead.body.events.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    const pending = await request(t.http).get('/admin/webhooks?status=pending&subject_id=bob').set(operator).expect(200);
    expect(pending.body.events.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[3]]);
  });

  it('answers 422 for a bad status, limit or cursor, naming the parameter', async () => {
    for (const [q, field] of [
      ['status=dead', 'status'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['cursor=not%20base64', 'cursor'],
      [`cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('{}').toString('base64url')}`, 'cursor'],
      ['cursor=AAAA', 'cursor'],
    ]) {
      const res = await request(t.http).get(`/admin/webhooks?${q}`).set(operator);
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.details[0].loc).toEqual(['query', field]);
    }
  });

  it('is operator-only: a client key bound to a tenant gets 403, no key 401', async () => {
    const created = await request(t.http).post('/admin/api-keys').set(operator).send({ role: 'client', tenant_id: 'acme' }).expect(201);
    expectEnvelope(await request(t.http).get('/admin/webhooks').set('X-API-Key', created.body.key), 403, 'forbidden');
    expectEnvelope(await request(t.http).get('/admin/webhooks?tenant_id=acme').set('X-API-Key', created.body.key), 403, 'forbidden');
    expectEnvelope(await request(t.http).get('/admin/webhooks'), 401, 'missing_api_key');
  });
});
