import { createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import request from 'supertest';
import { createTestApp, TestApp } from '../app-factory';

const SECRET = 'deletion-secret-of-enough-length';

describe('DELETE /v1/subjects/{id} with a deletion receipt', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SERVICE_RECEIPT_SIGNING_KEYS: `del1=${SECRET}`, SERVICE_RECEIPTS: 'always' });
  });
  afterAll(() => t.close());

  it('counts every kind of row removed, signs the certificate, and leaves no row holding the id or the content', async () => {
    const sid = 'erase-me-7f3a';
    const secretText = 'Zanzibar-quokka-41 is my locker code';
    const ingest = (text: string, extra: Record<string, unknown> = {}) =>
      request(t.http).post('/v1/episodes').send({ subject_id: sid, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: text }] }, ...extra }).expect(201);
    await ingest('My name is Erin and I am on the Pro plan.', { session_id: 's1', idempotency_key: `${sid}-k1` });
    await ingest(secretText, { session_id: 's1' });
    await request(t.http).post('/v1/memories/compile').send({ subject_id: sid }).expect(200);
    await ingest('We upgraded: I am on the Enterprise plan now.', { session_id: 's1' });
    await request(t.http).post('/v1/memories/compile').send({ subject_id: sid }).expect(200);
    await request(t.http).post('/v1/memories/compile').send({ subject_id: sid, async: true }).expect(202);
    const [memory] = (await request(t.http).get(`/v1/memories/search?subject_id=${sid}&q=locker`).expect(200)).body.memories;
    await request(t.http).patch(`/v1/memories/${memory.id}/labels`).send({ sensitivity_labels: ['secret'] }).expect(200);
    await request(t.http).post('/v1/resolutions').send({ subject_id: sid, session_id: 's1', status: 'open' }).expect(200);
    await request(t.http).get(`/v1/subjects/${sid}/health`).expect(200);
    await request(t.http).post('/v1/context').send({ subject_id: sid, task: 'what is the locker code' }).expect(200);
    await request(t.http).post('/v1/handoff').send({ subject_id: sid, session_id: 's1' }).expect(200);
    expect((await t.ds.query('SELECT count(*)::int AS n FROM memory_revisions WHERE subject_id = $1', [sid]))[0].n).toBeGreaterThan(0);
    // Another subject's batch event keeps its other subject.
    await request(t.http).post('/v1/episodes/batch').send({ episodes: [
      { subject_id: sid, source: 'user', type: 'note', payload: { text: 'x' } },
      { subject_id: 'keeper', source: 'user', type: 'note', payload: { text: 'y' } },
    ] }).expect(201);

    const res = await request(t.http).delete(`/v1/subjects/${sid}`).expect(200);
    expect(res.body).toMatchObject({ subject_id: sid, episodes_deleted: 4, resolutions_deleted: 1, receipts_deleted: 2, compile_jobs_deleted: 1, health_state_deleted: 1 });
    expect(res.body.events_deleted).toBeGreaterThan(3);
    // The health recomputations (ingestion, resolution, health read, handoff) left at least one point.
    expect(res.body.health_history_deleted).toBeGreaterThanOrEqual(1);
    const receipt = res.body.deletion_receipt;
    expect(receipt).toMatchObject({ subject_id: sid, tenant_id: null, key_id: 'del1', algorithm: 'hmac-sha256-canonical-v1' });
    expect(receipt.counts).toEqual({
      episodes: 4,
      memories: res.body.memories_deleted,
      compile_jobs: 1,
      resolutions: 1,
      health_state: 1,
      health_history: res.body.health_history_deleted,
      receipts: 2,
      events: res.body.events_deleted,
    });
    // Verifiable offline: HMAC over the RFC 8785 text of the certificate without its signature fields.
    const { signature, key_id: _k, algorithm: _a, ...certificate } = receipt;
    expect(signature).toBe(createHmac('sha256', SECRET).update(canonicalize(certificate)!, 'utf8').digest('hex'));

    // Every table of the schema, every column (the row as text): nothing names the subject or
    // holds its words, except the subject.deleted notice, which carries the id and counts only.
    const tables: { table_name: string }[] = await t.ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`);
    expect(tables.map((r) => r.table_name)).toEqual(expect.arrayContaining(['episodes', 'memories', 'receipts', 'memory_revisions', 'webhook_events', 'compile_jobs', 'health_history']));
    for (const { table_name } of tables) {
      const rows = await t.ds.query(
        `SELECT x::text AS row FROM "${table_name}" x WHERE (strpos(x::text, $1) > 0 OR strpos(x::text, 'quokka') > 0)
           AND NOT ($2 AND (x::text LIKE '%subject.deleted%'))`,
        [sid, table_name === 'webhook_events'],
      );
      expect({ table: table_name, rows }).toEqual({ table: table_name, rows: [] });
    }
    const notice = await t.ds.query(`SELECT payload FROM webhook_events WHERE event = 'subject.deleted'`);
    expect(notice.map((r: { payload: { data: unknown } }) => r.payload.data)).toEqual([{ subject_id: sid, episodes_deleted: 4, memories_deleted: res.body.memories_deleted, tenant_id: null }]);
    const batch = await t.ds.query(`SELECT payload FROM webhook_events WHERE event = 'episodes.batch_created'`);
    expect(batch.map((r: { payload: { data: { subject_ids: string[] } } }) => r.payload.data.subject_ids)).toEqual([['keeper']]);
  });
});
