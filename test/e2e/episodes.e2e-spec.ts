import request from 'supertest';
import { createTestApp, TestApp } from '../app-factory';

/**
 * POST /v1/episodes and /v1/episodes/batch (contract "POST /v1/episodes", compat.md "Episode" and
 * "POST /v1/episodes/batch"): the record shape, sessions, idempotent retries, all-or-nothing
 * batches in request order, the event rows written with them, and immutability.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const item = (over: Record<string, unknown> = {}) => ({
  subject_id: 'ep-subject',
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: 'My CSV export fails since Tuesday.' }] },
  ...over,
});

const stored = async (t: TestApp, where = 'TRUE', params: unknown[] = []): Promise<number> =>
  Number((await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE ${where}`, params))[0].n);

describe('POST /v1/episodes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => t.ds.query('TRUNCATE episodes, webhook_events'));

  it('stores the episode and answers 201 with the episode record', async () => {
    const res = await request(t.http).post('/v1/episodes').send(item({ metadata: { channel: 'web' } })).expect(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(UUID),
      subject_id: 'ep-subject',
      source: 'user',
      type: 'conversation',
      payload: { messages: [{ role: 'user', content: 'My CSV export fails since Tuesday.' }] },
      metadata: { channel: 'web' },
      provenance: {},
      session_id: null,
    });
    expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
    const [row] = await t.ds.query('SELECT subject_id, payload, session_id FROM episodes WHERE id = $1', [res.body.id]);
    expect(row).toEqual({ subject_id: 'ep-subject', payload: res.body.payload, session_id: null });
  });

  it('keeps the session id it is given and returns it on the record', async () => {
    const res = await request(t.http).post('/v1/episodes').send(item({ session_id: 'ticket-7' })).expect(201);
    expect(res.body.session_id).toBe('ticket-7');
    expect(await stored(t, 'session_id = $1', ['ticket-7'])).toBe(1);
  });

  it('refuses a session id outside 1–256 characters with 422 and stores nothing', async () => {
    for (const session_id of ['', 'x'.repeat(257), 42]) {
      const res = await request(t.http).post('/v1/episodes').send(item({ session_id }));
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect(await stored(t)).toBe(0);
  });

  it('answers a retry with the same idempotency key with the original episode, stored once', async () => {
    const first = await request(t.http).post('/v1/episodes').send(item({ idempotency_key: 'k-1' })).expect(201);
    const retry = await request(t.http)
      .post('/v1/episodes')
      .send(item({ idempotency_key: 'k-1', payload: { messages: [{ role: 'user', content: 'changed on retry' }] } }))
      .expect(201);
    expect(retry.body).toEqual(first.body);
    expect(await stored(t)).toBe(1);
    const other = await request(t.http).post('/v1/episodes').send(item({ idempotency_key: 'k-2' })).expect(201);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('stores one episode when the same key arrives on many connections at once', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => request(t.http).post('/v1/episodes').send(item({ idempotency_key: 'race' }))));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await stored(t)).toBe(1);
  });

  it('has no route that changes or removes one episode: episodes are immutable', async () => {
    const { body } = await request(t.http).post('/v1/episodes').send(item()).expect(201);
    for (const method of ['put', 'patch', 'delete'] as const) {
      const res = await request(t.http)[method](`/v1/episodes/${body.id}`).send(item({ payload: { text: 'rewritten' } }));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const [row] = await t.ds.query('SELECT payload FROM episodes WHERE id = $1', [body.id]);
    expect(row.payload).toEqual(body.payload);
  });

  it('writes no event rows while WEBHOOK_URL is empty', async () => {
    await request(t.http).post('/v1/episodes').send(item()).expect(201);
    await request(t.http).post('/v1/episodes/batch').send({ episodes: [item(), item()] }).expect(201);
    expect(await t.ds.query('SELECT event FROM webhook_events')).toEqual([]);
  });
});

describe('idempotency keys are per tenant', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true', SERVICE_TENANT_HEADER: 'X-Org' });
  });
  afterAll(() => t.close());

  it('gives each tenant its own episode for one key, and a retry in a tenant its own original', async () => {
    const a = await request(t.http).post('/v1/episodes').set('X-Org', 'acme').send(item({ idempotency_key: 'shared' })).expect(201);
    const b = await request(t.http).post('/v1/episodes').set('X-Org', 'globex').send(item({ idempotency_key: 'shared' })).expect(201);
    expect(b.body.id).not.toBe(a.body.id);
    const retryB = await request(t.http).post('/v1/episodes').set('X-Org', 'globex').send(item({ idempotency_key: 'shared' })).expect(201);
    expect(retryB.body.id).toBe(b.body.id);
    const rows = await t.ds.query(`SELECT tenant_id FROM episodes WHERE idempotency_key = 'shared' ORDER BY tenant_id`);
    expect(rows).toEqual([{ tenant_id: 'acme' }, { tenant_id: 'globex' }]);
  });
});

describe('POST /v1/episodes/batch', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => t.ds.query('TRUNCATE episodes'));

  it('stores every item and answers 201 with episodes_created and the episodes in request order', async () => {
    const items = Array.from({ length: 100 }, (_, i) =>
      item({ subject_id: `batch-${i % 3}`, session_id: i % 2 ? `s-${i}` : undefined, payload: { messages: [{ role: 'user', content: `turn ${i}` }] } }),
    );
    const res = await request(t.http).post('/v1/episodes/batch').send({ episodes: items }).expect(201);
    expect(res.body.episodes_created).toBe(100);
    expect(res.body.episodes.map((e: { payload: { messages: { content: string }[] } }) => e.payload.messages[0].content)).toEqual(
      items.map((_, i) => `turn ${i}`),
    );
    expect(res.body.episodes.map((e: { session_id: string | null }) => e.session_id)).toEqual(items.map((_, i) => (i % 2 ? `s-${i}` : null)));
    expect(await stored(t)).toBe(100);
    // The timeline reads them back in the order they were sent.
    const timeline = await request(t.http).get('/v1/timeline?subject_id=batch-0').expect(200);
    expect(timeline.body.episodes.map((e: { payload: { messages: { content: string }[] } }) => e.payload.messages[0].content)).toEqual(
      items.map((_, i) => `turn ${i}`).filter((_, i) => i % 3 === 0),
    );
  });

  it('refuses 0 and 101 items with 422 validation_error', async () => {
    for (const episodes of [[], Array.from({ length: 101 }, () => item())]) {
      const res = await request(t.http).post('/v1/episodes/batch').send({ episodes });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect(await stored(t)).toBe(0);
  });

  it('stores nothing when one item is invalid, and names the item', async () => {
    const res = await request(t.http)
      .post('/v1/episodes/batch')
      .send({ episodes: [item(), item(), item({ payload: 'not an object' })] });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { loc: (string | number)[] }) => d.loc.join('.'))).toEqual(['body.episodes.2.payload']);
    expect(await stored(t)).toBe(0);
  });

  it('answers a key repeated inside the batch, or already stored, with the stored episode', async () => {
    const earlier = await request(t.http).post('/v1/episodes').send(item({ idempotency_key: 'old' })).expect(201);
    const res = await request(t.http)
      .post('/v1/episodes/batch')
      .send({ episodes: [item({ idempotency_key: 'new' }), item({ idempotency_key: 'old' }), item({ idempotency_key: 'new' }), item()] })
      .expect(201);
    const ids = res.body.episodes.map((e: { id: string }) => e.id);
    expect(ids[1]).toBe(earlier.body.id);
    expect(ids[2]).toBe(ids[0]);
    expect(new Set(ids).size).toBe(3);
    expect(await stored(t)).toBe(3);
  });

  it('answers with the JSON as the database stored it: keys in jsonb order, numbers and duplicate keys as jsonb keeps them', async () => {
    // The rows are not read back after the INSERT (EpisodesService.insert): the answer must still
    // be what a read of the stored rows gives, byte for byte.
    const body = `{"episodes": [
      {"subject_id": "order", "source": "user", "type": "note", "payload": {"zeta": 1, "b": {"long_key": [1.0, 1e21, 1e-7, -0, 12345678901234567890], "a": "x"}, "10": true, "9": null, "é": "e", "\uff21": 1, "\ud83d\ude00": 2, "dup": 1, "dup": 2}, "metadata": {"z": {}, "a": []}},
      {"subject_id": "order", "source": "user", "type": "note", "payload": {"messages": [{"role": "user", "content": "hi"}]}, "provenance": {"source_system": "crm", "id": 7}}
    ]}`;
    const res = await request(t.http).post('/v1/episodes/batch').set('content-type', 'application/json').send(body).expect(201);
    for (const e of res.body.episodes as { id: string; payload: unknown; metadata: unknown; provenance: unknown }[]) {
      const [row] = await t.ds.query('SELECT payload::text AS payload, metadata::text AS metadata, provenance::text AS provenance FROM episodes WHERE id = $1', [e.id]);
      for (const field of ['payload', 'metadata', 'provenance'] as const) expect(JSON.stringify(e[field])).toBe(JSON.stringify(JSON.parse(row[field])));
    }
    expect(JSON.stringify(res.body.episodes[0].payload)).toBe(
      '{"9":null,"10":true,"b":{"a":"x","long_key":[1,1e+21,1e-7,0,12345678901234567000]},"é":"e","dup":2,"\uff21":1,"zeta":1,"\u{1F600}":2}',
    );
    // A single episode is written by the same INSERT.
    const one = await request(t.http).post('/v1/episodes').send(item({ payload: { zz: 1, a: { cc: 1, b: 2 } } })).expect(201);
    expect(JSON.stringify(one.body.payload)).toBe('{"a":{"b":2,"cc":1},"zz":1}');
  });
});

describe('event rows are written with the episodes (WEBHOOK_URL set)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 9: delivery is not under test here, the rows written with the episodes are.
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  });
  afterAll(() => t.close());
  beforeEach(() => t.ds.query('TRUNCATE episodes, webhook_events'));

  it('writes one episode.created row per new episode, none for an idempotent retry', async () => {
    const first = await request(t.http).post('/v1/episodes').send(item({ idempotency_key: 'ev' })).expect(201);
    await request(t.http).post('/v1/episodes').send(item({ idempotency_key: 'ev' })).expect(201);
    const rows = await t.ds.query('SELECT event, payload FROM webhook_events');
    expect(rows).toHaveLength(1);
    expect(rows[0].event).toBe('episode.created');
    expect(JSON.stringify(rows[0].payload)).toContain(first.body.id);
  });

  it('writes one episodes.batch_created row per batch with the count and subjects', async () => {
    await request(t.http)
      .post('/v1/episodes/batch')
      .send({ episodes: [item({ subject_id: 'a' }), item({ subject_id: 'b' }), item({ subject_id: 'a' })] })
      .expect(201);
    const rows = await t.ds.query('SELECT event, payload FROM webhook_events');
    expect(rows).toHaveLength(1);
    expect(rows[0].event).toBe('episodes.batch_created');
    expect(JSON.stringify(rows[0].payload)).toMatch(/"count":\s?3/);
  });

  it('writes neither episodes nor events for a refused batch', async () => {
    await request(t.http)
      .post('/v1/episodes/batch')
      .send({ episodes: [item(), item({ source: '' })] })
      .expect(422);
    expect(await stored(t)).toBe(0);
    expect(await t.ds.query('SELECT event FROM webhook_events')).toEqual([]);
  });
});
