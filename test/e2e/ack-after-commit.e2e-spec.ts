import request from 'supertest';
import { DataSource } from 'typeorm';
import { TenantScope } from 'src/common/db/tenant-scope';
import { ReadRouter, UNKNOWN_WRITE_POSITION } from 'src/db/read-replicas';
import { createTestApp, ingestText, TestApp } from '../app-factory';
import { FakeOpenAIServer } from '../fake-openai-server';

/**
 * A write is acknowledged by its outcome, never answered with a 5xx after it committed (clients
 * retry 5xx and would write twice). The races below are staged with triggers in the database:
 * a row that vanishes between the insert that conflicted with it and the lookup of it (a
 * concurrent subject deletion or hard forget), and a failure of the database while storing
 * vectors after the compile committed.
 */

/** Statement triggers that stage "the conflicting row vanished" once per armed key. */
async function installVanishingKeyTriggers(t: TestApp): Promise<void> {
  await t.ds.query(`CREATE TABLE IF NOT EXISTS test_vanish (tbl text NOT NULL, key text NOT NULL, phase text NOT NULL)`);
  // After the INSERT … ON CONFLICT DO NOTHING skipped the armed key's row, it disappears: the
  // service's lookup of the key that follows finds nothing.
  await t.ds.query(`
    CREATE OR REPLACE FUNCTION test_vanish_after() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE k text;
    BEGIN
      IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
      FOR k IN DELETE FROM test_vanish WHERE tbl = TG_TABLE_NAME AND phase = 'delete' RETURNING key LOOP
        EXECUTE format('DELETE FROM %I WHERE idempotency_key = $1', TG_TABLE_NAME) USING k;
      END LOOP;
      RETURN NULL;
    END $$`);
  // For memories, whose service looks the key up before inserting: the conflicting row appears
  // just before the INSERT (another request storing the same key), then vanishes after it.
  await t.ds.query(`
    CREATE OR REPLACE FUNCTION test_vanish_before() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE k text;
    BEGIN
      IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
      FOR k IN UPDATE test_vanish SET phase = 'delete' WHERE tbl = TG_TABLE_NAME AND phase = 'appear' RETURNING key LOOP
        INSERT INTO memories (subject_id, kind, content, idempotency_key, origin) VALUES ('racer', 'profile_fact', 'racer', k, 'api');
      END LOOP;
      RETURN NULL;
    END $$`);
  for (const table of ['episodes', 'memories']) {
    await t.ds.query(`DROP TRIGGER IF EXISTS test_vanish_after ON ${table}`);
    await t.ds.query(`CREATE TRIGGER test_vanish_after AFTER INSERT ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION test_vanish_after()`);
  }
  await t.ds.query(`DROP TRIGGER IF EXISTS test_vanish_before ON memories`);
  await t.ds.query(`CREATE TRIGGER test_vanish_before BEFORE INSERT ON memories FOR EACH STATEMENT EXECUTE FUNCTION test_vanish_before()`);
}

async function removeVanishingKeyTriggers(t: TestApp): Promise<void> {
  for (const table of ['episodes', 'memories']) await t.ds.query(`DROP TRIGGER IF EXISTS test_vanish_after ON ${table}`);
  await t.ds.query(`DROP TRIGGER IF EXISTS test_vanish_before ON memories`);
  await t.ds.query(`DROP FUNCTION IF EXISTS test_vanish_after(), test_vanish_before()`);
  await t.ds.query(`DROP TABLE IF EXISTS test_vanish`);
}

const episode = (subject: string, key: string, text: string) => ({
  subject_id: subject,
  source: 'user',
  type: 'conversation',
  idempotency_key: key,
  payload: { messages: [{ role: 'user', content: text }] },
});

describe.each([
  ['webhooks off (ingest without a transaction)', {}],
  ['webhooks on (ingest in a transaction with its event)', { SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/never-called' }],
])('an idempotency key whose stored row vanishes between the insert and the lookup, %s', (_name, env: Record<string, string>) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(env);
    await installVanishingKeyTriggers(t);
  });
  afterAll(async () => {
    await removeVanishingKeyTriggers(t);
    await t.close();
  });

  it('stores the episode again and answers 201 with it, for a single episode', async () => {
    const first = (await request(t.http).post('/v1/episodes').send(episode('vanish-1', 'k-single', 'first')).expect(201)).body;
    await t.ds.query(`INSERT INTO test_vanish VALUES ('episodes', 'k-single', 'delete')`);
    const again = (await request(t.http).post('/v1/episodes').send(episode('vanish-1', 'k-single', 'again')).expect(201)).body;
    expect(again.id).not.toBe(first.id);
    const rows = await t.ds.query(`SELECT id, payload FROM episodes WHERE idempotency_key = 'k-single'`);
    expect(rows).toEqual([{ id: again.id, payload: { messages: [{ role: 'user', content: 'again' }] } }]);
    // The key is taken again: a retry answers with the episode just stored.
    const retry = (await request(t.http).post('/v1/episodes').send(episode('vanish-1', 'k-single', 'retry')).expect(201)).body;
    expect(retry.id).toBe(again.id);
  });

  it('answers the batch in request order with every episode stored, for a batch', async () => {
    const kept = (await request(t.http).post('/v1/episodes').send(episode('vanish-2', 'k-kept', 'kept')).expect(201)).body;
    await request(t.http).post('/v1/episodes').send(episode('vanish-2', 'k-gone', 'gone')).expect(201);
    await t.ds.query(`INSERT INTO test_vanish VALUES ('episodes', 'k-gone', 'delete')`);
    const res = await request(t.http)
      .post('/v1/episodes/batch')
      .send({ episodes: [episode('vanish-2', 'k-new', 'new'), episode('vanish-2', 'k-gone', 'gone again'), episode('vanish-2', 'k-kept', 'kept again')] })
      .expect(201);
    expect(res.body.episodes_created).toBe(3);
    const [fresh, regone, rekept] = res.body.episodes;
    expect(rekept.id).toBe(kept.id);
    const stored = await t.ds.query(`SELECT id, idempotency_key FROM episodes WHERE subject_id = 'vanish-2' ORDER BY idempotency_key`);
    expect(stored).toEqual([
      { id: regone.id, idempotency_key: 'k-gone' },
      { id: rekept.id, idempotency_key: 'k-kept' },
      { id: fresh.id, idempotency_key: 'k-new' },
    ]);
  });

  it('remembers the memory and answers 201 with it when the memory holding its key is stored and deleted meanwhile', async () => {
    await t.ds.query(`INSERT INTO test_vanish VALUES ('memories', 'k-mem', 'appear')`);
    const res = await request(t.http).post('/v1/memories').send({ subject_id: 'vanish-3', kind: 'profile_fact', content: 'I live in Oslo.', idempotency_key: 'k-mem' }).expect(201);
    expect(res.body).toMatchObject({ subject_id: 'vanish-3', content: 'I live in Oslo.', origin: 'api' });
    const rows = await t.ds.query(`SELECT id, subject_id FROM memories WHERE idempotency_key = 'k-mem'`);
    expect(rows).toEqual([{ id: res.body.id, subject_id: 'vanish-3' }]);
    expect(await t.ds.query(`SELECT count(*)::int AS n FROM test_vanish`)).toEqual([{ n: 0 }]);
  });
});

describe('vectors stored after a compile committed (remote embedding provider)', () => {
  const fake = new FakeOpenAIServer(16);
  let t: TestApp;
  beforeAll(async () => {
    await fake.start();
    t = await createTestApp({
      SERVICE_EMBEDDING_PROVIDER: 'openai',
      SERVICE_OPENAI_BASE_URL: fake.url,
      SERVICE_OPENAI_API_KEY: 'sk-test',
      SERVICE_OPENAI_EMBEDDING_MODEL: 'fake-embed',
      SERVICE_EMBEDDING_DIMENSIONS: '16',
    });
    // The database refuses the vectors of this subject's memories (as an outage or a failing
    // statement would after the commit); the memories themselves are already stored.
    await t.ds.query(`
      CREATE OR REPLACE FUNCTION test_refuse_vectors() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'vectors refused for the test'; END $$`);
    await t.ds.query(`
      CREATE TRIGGER test_refuse_vectors BEFORE UPDATE OF embedding ON memories FOR EACH ROW
      WHEN (NEW.subject_id = 'vec-refused' AND NEW.embedding IS NOT NULL) EXECUTE FUNCTION test_refuse_vectors()`);
  });
  afterAll(async () => {
    await t.ds.query(`DROP TRIGGER IF EXISTS test_refuse_vectors ON memories`);
    await t.ds.query(`DROP FUNCTION IF EXISTS test_refuse_vectors()`);
    await t.close();
    await fake.stop();
  });

  it('answers the compile 200 with its memories, left flagged needs_embedding, when storing the vectors fails', async () => {
    await ingestText(t, 'vec-refused', 'My name is Juno Marsh. I prefer email.');
    const res = await request(t.http).post('/v1/memories/compile').send({ subject_id: 'vec-refused' }).expect(200);
    expect(res.body.memories_created).toBeGreaterThan(0);
    expect(fake.requestsTo('/v1/embeddings').length).toBeGreaterThan(0);
    const rows = await t.ds.query(`SELECT needs_embedding, embedding FROM memories WHERE subject_id = 'vec-refused'`);
    expect(rows).toHaveLength(res.body.memories_created);
    for (const r of rows) expect(r).toEqual({ needs_embedding: true, embedding: null });
  });

  it('answers remember 201 with the memory, left flagged needs_embedding, when storing its vector fails', async () => {
    const res = await request(t.http).post('/v1/memories').send({ subject_id: 'vec-refused', kind: 'profile_fact', content: 'I live in Bergen.' }).expect(201);
    expect(await t.ds.query(`SELECT needs_embedding FROM memories WHERE id = $1`, [res.body.id])).toEqual([{ needs_embedding: true }]);
  });
});

describe('read-your-writes fence after a commit (read replicas configured)', () => {
  it('fences the written subject to the primary for the window instead of failing the committed write, when the primary cannot tell its WAL position', async () => {
    // Every write path calls wrote() after its commit. The primary as a database outage right
    // after that commit leaves it: no connection to ask.
    const primary = new DataSource({ type: 'postgres', url: process.env.TEST_DB_URL });
    const router = new ReadRouter(primary, { urls: [process.env.TEST_DB_URL!], poolSize: 1, maxLagMs: 1000, windowMs: 5000 });
    const fences: [string, string][] = [];
    router.onFence = (key, lsn) => fences.push([key, lsn]);
    try {
      await expect(router.wrote(TenantScope.of('acme'), ['s1', 's1', 's2'])).resolves.toBeUndefined();
      // No replica has replayed past this position: reads of s1 and s2 stay on the primary.
      expect(fences.map(([, lsn]) => lsn)).toEqual([String(UNKNOWN_WRITE_POSITION), String(UNKNOWN_WRITE_POSITION)]);
    } finally {
      await router.close();
    }
  });
});

