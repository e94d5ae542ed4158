import request from 'supertest';
import { metrics } from 'src/common/metrics/metrics';
import { Client } from 'pg';
import { createTestApp, isPglite, TestApp } from '../app-factory';

/**
 * Group commit of single-episode ingestion (EpisodesService.create): concurrent requests share
 * one transaction and one INSERT, and still behave as if each ran alone: one event row per
 * episode created, idempotency keys per request, and a row the database refuses fails only
 * its own request.
 */
async function groups(): Promise<{ count: number; sum: number }> {
  const { values } = await metrics.ingestGroupSize.get();
  const pick = (name: string) => values.find((v) => v.metricName === name)?.value ?? 0;
  return { count: pick('memory_ingest_group_size_count'), sum: pick('memory_ingest_group_size_sum') };
}

/**
 * Sends the requests concurrently. On PostgreSQL, inserts into episodes are held (a SHARE lock
 * from another session) until every request has been sent, so the first group's INSERT waits and
 * the rest queue behind it: grouping then does not depend on how fast a loaded machine answers.
 * PGlite has one connection (the app's), so there they are only sent together.
 */
async function concurrently(t: TestApp, bodies: object[]): Promise<request.Response[]> {
  let hold: Client | null = null;
  if (!isPglite()) {
    hold = new Client({ connectionString: process.env.TEST_DB_URL });
    await hold.connect();
    await hold.query('BEGIN');
    await hold.query('LOCK TABLE episodes IN SHARE MODE');
  }
  const pending = Promise.all(bodies.map((b) => request(t.http).post('/v1/episodes').send(b)));
  if (hold) {
    await new Promise((r) => setTimeout(r, 300));
    await hold.query('COMMIT');
    await hold.end();
  }
  return pending;
}

const episode = (subject: string, text: string, key?: string) => ({
  subject_id: subject,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: text }] },
  ...(key && { idempotency_key: key }),
});

describe('group commit of single-episode ingestion', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  });
  afterAll(async () => {
    await t.ds.query('DROP TRIGGER IF EXISTS poison_episode ON episodes');
    await t.ds.query('DROP FUNCTION IF EXISTS poison_episode()');
    await t.close();
  });

  it('writes concurrent requests in groups, each answered with its own episode and one event row each', async () => {
    const before = await groups();
    const bodies = Array.from({ length: 24 }, (_, i) => episode(`gc-${i % 6}`, `message ${i}`, i === 5 || i === 17 ? 'same-key' : i % 4 === 0 ? `key-${i}` : undefined));
    const responses = await concurrently(t, bodies);
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    responses.forEach((r, i) => {
      expect(r.body.subject_id).toBe(bodies[i].subject_id);
      if (i !== 5 && i !== 17) expect(r.body.payload).toEqual(bodies[i].payload);
    });
    // The two requests with one key answer with one stored episode, whichever was written first.
    expect(responses[5].body.id).toBe(responses[17].body.id);
    expect([bodies[5].payload, bodies[17].payload]).toContainEqual(responses[5].body.payload);
    const after = await groups();
    expect(after.sum - before.sum).toBe(24);
    // Fewer commits than requests: they were grouped.
    expect(after.count - before.count).toBeLessThan(24);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id LIKE 'gc-%'`);
    expect(n).toBe(23);
    const events = await t.ds.query(`SELECT payload->'data'->>'id' AS id FROM webhook_events WHERE event = 'episode.created'`);
    expect(events.map((e: { id: string }) => e.id).sort()).toEqual([...new Set(responses.map((r) => r.body.id as string))].sort());
    // Each answer is its stored row.
    for (const r of responses) {
      const [row] = await t.ds.query(`SELECT subject_id, payload FROM episodes WHERE id = $1`, [r.body.id]);
      expect(row.subject_id).toBe(r.body.subject_id);
    }
  });

  it('fails only the request whose row the database refuses; the rest of its group is stored', async () => {
    await t.ds.query(`CREATE FUNCTION poison_episode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by test trigger'; END $$`);
    await t.ds.query(`CREATE TRIGGER poison_episode BEFORE INSERT ON episodes FOR EACH ROW WHEN (NEW.subject_id = 'poison') EXECUTE FUNCTION poison_episode()`);
    const alone = await request(t.http).post('/v1/episodes').send(episode('poison', 'alone'));
    expect(alone.status).toBeGreaterThanOrEqual(400);

    const before = await groups();
    const bodies = Array.from({ length: 16 }, (_, i) => (i === 7 ? episode('poison', 'in a group') : episode('healthy', `message ${i}`)));
    const responses = await concurrently(t, bodies);
    const after = await groups();
    expect(after.count - before.count).toBeLessThan(16);
    expect(responses.map((r) => r.status)).toEqual(bodies.map((_, i) => (i === 7 ? alone.status : 201)));
    expect(responses[7].body.error?.code ?? responses[7].body.code).toBe(alone.body.error?.code ?? alone.body.code);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 'healthy'`);
    expect(n).toBe(15);
    const [{ poisoned }] = await t.ds.query(`SELECT count(*)::int AS poisoned FROM episodes WHERE subject_id = 'poison'`);
    expect(poisoned).toBe(0);
    const [{ events }] = await t.ds.query(`SELECT count(*)::int AS events FROM webhook_events w JOIN episodes e ON e.id = (w.payload->'data'->>'id')::uuid WHERE e.subject_id = 'healthy'`);
    expect(events).toBe(15);
  });
});

/**
 * Without webhooks a group of keyless requests is one INSERT statement and is written without
 * BEGIN/COMMIT (needsTransaction): it must stay all-or-nothing, so that a refused row still fails
 * only its own request and nothing of its group is stored twice by the one-by-one retry.
 */
describe('group commit of single-statement groups (webhooks off)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 180_000);
  afterAll(async () => {
    await t.ds.query('DROP TRIGGER IF EXISTS poison_episode ON episodes');
    await t.ds.query('DROP FUNCTION IF EXISTS poison_episode()');
    await t.close();
  });

  it('groups keyless requests, each answered with its own stored episode', async () => {
    const before = await groups();
    const bodies = Array.from({ length: 16 }, (_, i) => episode(`one-${i % 4}`, `message ${i}`));
    const responses = await concurrently(t, bodies);
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    const after = await groups();
    expect(after.count - before.count).toBeLessThan(16);
    for (const [i, r] of responses.entries()) {
      const [row] = await t.ds.query(`SELECT subject_id, payload FROM episodes WHERE id = $1`, [r.body.id]);
      expect(row).toEqual({ subject_id: bodies[i].subject_id, payload: bodies[i].payload });
    }
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id LIKE 'one-%'`);
    expect(n).toBe(16);
  });

  it('stores nothing of a refused single-statement group before the retry, and fails only the refused request', async () => {
    await t.ds.query(`CREATE FUNCTION poison_episode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by test trigger'; END $$`);
    await t.ds.query(`CREATE TRIGGER poison_episode BEFORE INSERT ON episodes FOR EACH ROW WHEN (NEW.subject_id = 'poison') EXECUTE FUNCTION poison_episode()`);
    const alone = await request(t.http).post('/v1/episodes').send(episode('poison', 'alone'));
    expect(alone.status).toBeGreaterThanOrEqual(400);
    const before = await groups();
    const bodies = Array.from({ length: 12 }, (_, i) => (i === 3 ? episode('poison', 'in a group') : episode('fine', `message ${i}`)));
    const responses = await concurrently(t, bodies);
    expect((await groups()).count - before.count).toBeLessThan(12);
    expect(responses.map((r) => r.status)).toEqual(bodies.map((_, i) => (i === 3 ? alone.status : 201)));
    expect(responses[3].body.error?.code ?? responses[3].body.code).toBe(alone.body.error?.code ?? alone.body.code);
    // Exactly one row per accepted request: the failed group INSERT left none behind to duplicate.
    const rows: { id: string }[] = await t.ds.query(`SELECT id FROM episodes WHERE subject_id = 'fine'`);
    expect(rows.map((r) => r.id).sort()).toEqual(responses.filter((_, i) => i !== 3).map((r) => r.body.id as string).sort());
    const [{ poisoned }] = await t.ds.query(`SELECT count(*)::int AS poisoned FROM episodes WHERE subject_id = 'poison'`);
    expect(poisoned).toBe(0);
  });

  it('keeps idempotency keys per request in a group that mixes keyed and keyless requests', async () => {
    const first = await request(t.http).post('/v1/episodes').send(episode('mixed', 'stored first', 'mixed-key')).expect(201);
    const bodies = Array.from({ length: 10 }, (_, i) => episode('mixed', `message ${i}`, i % 3 === 0 ? 'mixed-key' : undefined));
    const responses = await concurrently(t, bodies);
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    responses.forEach((r, i) => {
      if (i % 3 === 0) expect(r.body).toMatchObject({ id: first.body.id, payload: first.body.payload });
      else expect(r.body.payload).toEqual(bodies[i].payload);
    });
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 'mixed'`);
    expect(n).toBe(1 + 6);
  });
});

describe('single-episode ingestion with SERVICE_INGEST_GROUP_COMMIT=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_INGEST_GROUP_COMMIT: 'false' });
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  it('writes each concurrent request on its own, each answered with its episode', async () => {
    const before = await groups();
    const bodies = Array.from({ length: 12 }, (_, i) => episode(`solo-${i % 3}`, `message ${i}`));
    const responses = await Promise.all(bodies.map((b) => request(t.http).post('/v1/episodes').send(b)));
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    responses.forEach((r, i) => expect(r.body.payload).toEqual(bodies[i].payload));
    const after = await groups();
    expect(after.count - before.count).toBe(12);
    expect(after.sum - before.sum).toBe(12);
  });
});
