import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTestApp, isPglite, TestApp } from '../app-factory';

/**
 * Per-subject reads hold a bounded number of rows and bytes in memory, whatever the size of
 * the subject's episodes (SERVICE_READ_PAGE_BYTES, here at its minimum of 64 KiB), and a slow
 * reader never keeps a database connection or snapshot.
 */
const PAGE_BYTES = 65536;
/** ~30 kB of JSON per episode: two fit under the budget, the third crosses it. */
const bigText = (i: number) => `Episode ${i}. My favourite colour is blue number ${i}. ${'word '.repeat(6000)}`;
const big = (subject: string, i: number) => ({ subject_id: subject, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: bigText(i) }] } });

describe('bounded per-subject reads', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_READ_PAGE_BYTES: String(PAGE_BYTES) });
    await request(t.http).post('/v1/episodes/batch').send({ episodes: Array.from({ length: 7 }, (_, i) => big('big', i)) }).expect(201);
  });
  afterAll(() => t.close());

  it('pages the timeline by bytes with a cursor, every episode and memory exactly once, in order', async () => {
    await request(t.http).post('/v1/memories/compile').send({ subject_id: 'big' }).expect(200);
    const first = await request(t.http).get('/v1/timeline').query({ subject_id: 'big' }).expect(200);
    expect(first.body.episodes).toHaveLength(3);
    expect(typeof first.body.next_cursor).toBe('string');
    const episodes = [...first.body.episodes];
    const memories = [...first.body.memories];
    let cursor: string | null = first.body.next_cursor;
    let pages = 1;
    while (cursor !== null) {
      const page = await request(t.http).get('/v1/timeline').query({ subject_id: 'big', cursor }).expect(200);
      expect(page.body.episodes.length).toBeLessThanOrEqual(3);
      episodes.push(...page.body.episodes);
      memories.push(...page.body.memories);
      cursor = page.body.next_cursor;
      pages++;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(episodes.map((e) => e.payload.messages[0].content.split('.')[0])).toEqual(Array.from({ length: 7 }, (_, i) => `Episode ${i}`));
    const stored = await t.ds.query(`SELECT id::text FROM memories WHERE subject_id = 'big' ORDER BY created_at, id`);
    expect(memories.map((m) => m.id)).toEqual(stored.map((r: { id: string }) => r.id));
  });

  it('pages by limit too, and answers a subject that fits in one page as always, with next_cursor null', async () => {
    const limited = await request(t.http).get('/v1/timeline').query({ subject_id: 'big', limit: 1 }).expect(200);
    expect(limited.body.episodes).toHaveLength(1);
    const next = await request(t.http).get('/v1/timeline').query({ subject_id: 'big', limit: 1, cursor: limited.body.next_cursor }).expect(200);
    expect(next.body.episodes[0].id).not.toBe(limited.body.episodes[0].id);
    await request(t.http).post('/v1/episodes').send({ subject_id: 'small', source: 'user', type: 'note', payload: { text: 'hello' } }).expect(201);
    const small = await request(t.http).get('/v1/timeline').query({ subject_id: 'small' }).expect(200);
    expect(small.body).toEqual({ subject_id: 'small', episodes: [expect.objectContaining({ payload: { text: 'hello' } })], memories: [], next_cursor: null });
  });

  it('rejects a cursor it did not write with 422 naming the parameter', async () => {
    for (const cursor of ['nope', Buffer.from('{"e":{"at":"x","seq":"1"},"m":null}').toString('base64url')]) {
      const res = await request(t.http).get('/v1/timeline').query({ subject_id: 'big', cursor }).expect(422);
      expect(res.body.error.details[0].loc).toEqual(['query', 'cursor']);
    }
  });

  it('compiles a large backlog in byte-bounded rounds, each its own transaction, and caps the memories it echoes', async () => {
    await request(t.http).post('/v1/episodes/batch').send({ episodes: Array.from({ length: 7 }, (_, i) => big('rounds', i)) }).expect(201);
    const res = await request(t.http).post('/v1/memories/compile').send({ subject_id: 'rounds' }).expect(200);
    expect(res.body.memories_created).toBeGreaterThan(0);
    const [{ n, tx }] = await t.ds.query(`SELECT count(*)::int AS n, count(DISTINCT xmin::text)::int AS tx FROM memories WHERE subject_id = 'rounds'`);
    expect(n).toBe(res.body.memories_created);
    // Two ~30 kB episodes per 64 KiB round (the third crosses the budget and is taken too): three or more commits.
    expect(tx).toBeGreaterThanOrEqual(3);
    const [{ left }] = await t.ds.query(`SELECT count(*)::int AS left FROM episodes WHERE subject_id = 'rounds' AND last_compiled_at IS NULL`);
    expect(left).toBe(0);
  });

  it('echoes at most 100 memories from a compile and a job, counting the rest in memories_omitted', async () => {
    // One episode summary per conversation episode: 120 episodes, 120 memories or more.
    const notes = Array.from({ length: 120 }, (_, i) => ({ subject_id: 'many', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: `Ticket ${i}: the export button fails.` }] } }));
    await request(t.http).post('/v1/episodes/batch').send({ episodes: notes.slice(0, 100) }).expect(201);
    await request(t.http).post('/v1/episodes/batch').send({ episodes: notes.slice(100) }).expect(201);
    const res = await request(t.http).post('/v1/memories/compile').send({ subject_id: 'many' }).expect(200);
    expect(res.body.memories_created).toBeGreaterThan(100);
    expect(res.body.memories).toHaveLength(100);
    expect(res.body.memories_omitted).toBe(res.body.memories_created - 100);
  });

  it('exports a subject larger than a page whole (checksum verified by a re-import)', async () => {
    const doc = await request(t.http).get('/admin/export/big').buffer(true).parse((r, cb) => {
      let text = '';
      r.on('data', (c: Buffer) => (text += c.toString('utf8')));
      r.on('end', () => cb(null, text));
    }).expect(200);
    doc.text = doc.body as unknown as string;
    doc.body = JSON.parse(doc.text);
    expect(doc.body.counts.episodes).toBe(7);
    const copy = await request(t.http).post('/admin/import').set('Content-Type', 'application/json').send(`{"document": ${doc.text}, "target_subject_id": "big-copy", "preserve_ids": false}`);
    expect(copy.status).toBe(200);
    expect(copy.body.episodes_imported).toBe(7);
  });

  it('keeps no connection or snapshot while a reader stalls on an export; other requests are served', async () => {
    await request(t.http).post('/v1/episodes/batch').send({ episodes: Array.from({ length: 60 }, (_, i) => big('huge', i)) }).expect(201);
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    // A reader that takes the headers and then stops reading (~1.8 MB stays unread).
    const stalled = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/admin/export/huge' }, (res) => {
        res.pause();
        resolve(res);
      }).on('error', reject);
    });
    expect(stalled.statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await request(server).get('/v1/timeline').query({ subject_id: 'small' }).expect(200);
    expect(Date.now() - started).toBeLessThan(3000);
    if (!isPglite()) {
      const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`);
      expect(n).toBe(0);
    }
    let received = 0;
    stalled.on('data', (c: Buffer) => (received += c.length));
    await new Promise((r) => stalled.on('end', r).resume());
    expect(received).toBeGreaterThan(60 * 30_000);
  });
});
