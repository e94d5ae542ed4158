import request from 'supertest';
import { TenantScope } from 'src/common/db/tenant-scope';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { createTestApp, ingestText, TestApp } from '../app-factory';

const MEMORY_KEYS = ['confidence', 'content', 'created_at', 'id', 'kind', 'metadata', 'origin', 'sensitivity_labels', 'source_episode_ids', 'status', 'subject_id', 'summary', 'updated_at', 'valid_from', 'valid_to'];


const compile = (t: TestApp, body: Record<string, unknown>) => request(t.http).post('/v1/memories/compile').send(body);

async function uncompiledCount(t: TestApp, subject: string): Promise<number> {
  const [row] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = $1 AND last_compiled_at IS NULL`, [subject]);
  return row.n;
}

describe('POST /v1/memories/compile (synchronous)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  });
  afterAll(() => t.close());

  it('compiles uncompiled episodes into memories with provenance and the compat record shape', async () => {
    const episodeId = await ingestText(t, 'juno', 'My name is Juno Marsh. I prefer email.');
    const res = await compile(t, { subject_id: 'juno' }).expect(200);
    expect(res.body.subject_id).toBe('juno');
    expect(res.body.memories_created).toBe(res.body.memories.length);
    expect(res.body.memories.length).toBeGreaterThanOrEqual(2);
    for (const m of res.body.memories) {
      expect(Object.keys(m).sort()).toEqual(MEMORY_KEYS);
      expect(m).toMatchObject({ subject_id: 'juno', status: 'active', valid_to: null, source_episode_ids: [episodeId] });
      for (const [key, value] of Object.entries(m)) if (key !== 'valid_to') expect(value).not.toBeNull();
    }
    const contents = res.body.memories.map((m: { content: string }) => m.content);
    expect(contents).toContain('My name is Juno Marsh.');
    expect(res.body.memories.find((m: { kind: string }) => m.kind === 'episode_summary').content).toMatch(/^user: My name is Juno Marsh/);
    expect(await uncompiledCount(t, 'juno')).toBe(0);
  });

  it('compiles only new episodes on a repeated call and answers 200 with zero when nothing is new', async () => {
    const again = await compile(t, { subject_id: 'juno' }).expect(200);
    expect(again.body).toEqual({ subject_id: 'juno', memories_created: 0, memories: [], memories_omitted: 0 });
    const second = await ingestText(t, 'juno', 'My favorite color is green.');
    const res = await compile(t, { subject_id: 'juno' }).expect(200);
    expect(res.body.memories_created).toBeGreaterThan(0);
    for (const m of res.body.memories) expect(m.source_episode_ids).toEqual([second]);
  });

  it('answers 200 with zero memories for a subject that has no episodes', async () => {
    const res = await compile(t, { subject_id: 'nobody-here' }).expect(200);
    expect(res.body).toEqual({ subject_id: 'nobody-here', memories_created: 0, memories: [], memories_omitted: 0 });
  });

  it('supersedes the older memory when a restated preference overlaps it, pointing at the newer one', async () => {
    await ingestText(t, 'pref', 'I prefer email.');
    const first = await compile(t, { subject_id: 'pref' }).expect(200);
    const old = first.body.memories.find((m: { content: string }) => m.content === 'I prefer email.');
    await ingestText(t, 'pref', 'Actually I prefer phone calls now.');
    const second = await compile(t, { subject_id: 'pref' }).expect(200);
    const newer = second.body.memories.find((m: { content: string }) => m.content === 'Actually I prefer phone calls now.');
    expect(newer.status).toBe('active');
    const [row] = await t.ds.query(`SELECT status, valid_to, superseded_by, updated_at FROM memories WHERE id = $1`, [old.id]);
    expect(row.status).toBe('superseded');
    expect(row.valid_to).not.toBeNull();
    expect(row.superseded_by).toBe(newer.id);
    expect(new Date(row.updated_at).getTime()).toBeGreaterThan(new Date(old.updated_at).getTime());
  });

  type Mem = { id: string; kind: string; content: string; status: string; valid_to: string | null; valid_from: string; source_episode_ids: string[]; superseded_by?: string };
  const timelineMemories = async (subject: string): Promise<Mem[]> => (await request(t.http).get('/v1/timeline').query({ subject_id: subject }).expect(200)).body.memories;

  it('supersedes a fact and its episode summary when the same sentence is compiled again, keeping both in the timeline', async () => {
    const sentence = 'I prefer tea over coffee';
    const firstEpisode = await ingestText(t, 'restate', sentence);
    const first = await compile(t, { subject_id: 'restate' }).expect(200);
    const secondEpisode = await ingestText(t, 'restate', sentence);
    const second = await compile(t, { subject_id: 'restate' }).expect(200);
    expect(second.body.memories.map((m: Mem) => [m.kind, m.status]).sort()).toEqual([
      ['episode_summary', 'active'],
      ['profile_fact', 'active'],
    ]);

    const memories = await timelineMemories('restate');
    for (const kind of ['profile_fact', 'episode_summary']) {
      const older = memories.find((m) => m.kind === kind && m.source_episode_ids[0] === firstEpisode)!;
      const newer = memories.find((m) => m.kind === kind && m.source_episode_ids[0] === secondEpisode)!;
      expect(older.content).toBe(newer.content);
      expect(older.id).toBe(first.body.memories.find((m: Mem) => m.kind === kind).id);
      expect(older).toMatchObject({ status: 'superseded', valid_to: newer.valid_from });
      expect(newer).toMatchObject({ status: 'active', valid_to: null });
      // The wire record links a version to its successor; an active one has no such key.
      expect(older.superseded_by).toBe(newer.id);
      expect(newer).not.toHaveProperty('superseded_by');
    }
    const search = await request(t.http).get('/v1/memories/search').query({ subject_id: 'restate', q: 'tea' }).expect(200);
    expect(search.body.memories.every((m: Mem) => m.source_episode_ids[0] === secondEpisode)).toBe(true);
  });

  it('keeps one active episode summary and one superseded when a two-part statement is compiled twice', async () => {
    const sentence = 'My favorite color is teal and my office is in building 7';
    for (let i = 0; i < 2; i++) {
      await ingestText(t, 'restate-2', sentence);
      await compile(t, { subject_id: 'restate-2' }).expect(200);
    }
    const summaries = (await timelineMemories('restate-2')).filter((m) => m.kind === 'episode_summary');
    expect(summaries.map((m) => m.status).sort()).toEqual(['active', 'superseded']);
    expect(new Set(summaries.map((m) => m.content)).size).toBe(1);
  });

  it('gives each fact of a two-clause sentence its own clause as content', async () => {
    await ingestText(t, 'clauses', 'My name is Juno Marsh and I live in Tromso');
    const res = await compile(t, { subject_id: 'clauses' }).expect(200);
    const facts = res.body.memories.filter((m: Mem) => m.kind === 'profile_fact').map((m: Mem & { summary: string }) => [m.content, m.summary]);
    expect(facts.sort()).toEqual([
      ['I live in Tromso', 'location: Tromso'],
      ['My name is Juno Marsh', 'name: Juno Marsh'],
    ]);
  });

  it('stores a stub embedding of EMBEDDING_DIMENSIONS on every new memory', async () => {
    await ingestText(t, 'vec', 'I live in Lisbon.');
    const res = await compile(t, { subject_id: 'vec' }).expect(200);
    const rows = await t.ds.query(`SELECT cardinality(embedding) AS dims, needs_embedding FROM memories WHERE id = ANY($1::uuid[])`, [res.body.memories.map((m: { id: string }) => m.id)]);
    expect(rows.length).toBe(res.body.memories_created);
    for (const r of rows) expect(r).toEqual({ dims: t.config.embeddingDimensions, needs_embedding: false });
  });

  it('writes the memories.compiled event with the count when webhooks are configured', async () => {
    await ingestText(t, 'evt', 'My name is Ada.');
    const res = await compile(t, { subject_id: 'evt' }).expect(200);
    const events = await t.ds.query(`SELECT payload FROM webhook_events WHERE event = 'memories.compiled' AND payload->'data'->>'subject_id' = 'evt'`);
    expect(events.map((e: { payload: { data: unknown } }) => e.payload.data)).toEqual([{ subject_id: 'evt', memories_created: res.body.memories_created, tenant_id: null }]);
  });

  it('compiles each episode exactly once under ten parallel compile calls interleaved with ingestion', async () => {
    const subject = 'parallel';
    const calls = Array.from({ length: 10 }, async (_, i) => {
      await ingestText(t, subject, `My name is Juno Marsh. My plan is Pro. Ticket number ${i} is about billing.`);
      return compile(t, { subject_id: subject });
    });
    const responses = await Promise.all(calls);
    for (const r of responses) expect(r.status).toBe(200);
    // A last call picks up anything ingested after the final compile started.
    responses.push(await compile(t, { subject_id: subject }).expect(200));
    const reported = responses.flatMap((r) => r.body.memories.map((m: { id: string }) => m.id));
    expect(new Set(reported).size).toBe(reported.length);
    const stored = await t.ds.query(`SELECT id, kind, status, attribute_key, source_episode_ids FROM memories WHERE subject_id = $1`, [subject]);
    expect(stored.map((m: { id: string }) => m.id).sort()).toEqual([...reported].sort());
    const episodes = await t.ds.query(`SELECT id, last_compiled_at FROM episodes WHERE subject_id = $1`, [subject]);
    expect(episodes).toHaveLength(10);
    for (const e of episodes) {
      expect(e.last_compiled_at).not.toBeNull();
      const summaries = stored.filter((m: { kind: string; source_episode_ids: string[] }) => m.kind === 'episode_summary' && m.source_episode_ids.includes(e.id));
      expect(summaries).toHaveLength(1);
    }
    // Serialised compiles see each other's facts: the restated name exists once, active.
    const names = stored.filter((m: { attribute_key: string | null; status: string }) => m.attribute_key === 'profile:name' && m.status === 'active');
    expect(names).toHaveLength(1);
  });

  it('answers 422 naming the field for a missing, empty or too long subject_id and a non-boolean async', async () => {
    for (const [body, loc] of [
      [{}, 'subject_id'],
      [{ subject_id: '' }, 'subject_id'],
      [{ subject_id: 'x'.repeat(257) }, 'subject_id'],
      [{ subject_id: 'ok', async: 'yes' }, 'async'],
    ] as const) {
      const res = await compile(t, body).expect(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d: { loc: string[] }) => d.loc)).toContainEqual(['body', loc]);
    }
  });

  it('lists a subject’s memories of every status in time order for other modules', async () => {
    const rows = await t.ds.transaction((em) => t.app.get(MemoriesService).listForSubject(em, TenantScope.ofRequest(null), 'pref'));
    expect(rows.map((r) => r.status)).toContain('superseded');
    const times = rows.map((r) => new Date(r.created_at).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('deletes a subject’s memories and compile jobs for other modules and returns the memories count', async () => {
    await compile(t, { subject_id: 'pref', async: true }).expect(202);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'pref'`);
    const deleted = await t.ds.transaction((em) => t.app.get(MemoriesService).deleteSubject(em, TenantScope.ofRequest(null), 'pref'));
    expect(deleted.memories).toBe(n);
    const [left] = await t.ds.query(`SELECT (SELECT count(*) FROM memories WHERE subject_id = 'pref')::int AS m, (SELECT count(*) FROM compile_jobs WHERE subject_id = 'pref')::int AS j`);
    expect(left).toEqual({ m: 0, j: 0 });
  });
});

describe('compile with embeddings unavailable (EMBEDDING_PROVIDER=openai, not implemented yet)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_EMBEDDING_PROVIDER: 'openai' });
  });
  afterAll(() => t.close());

  it('still compiles and stores the memories without embeddings, flagged needs_embedding', async () => {
    await ingestText(t, 'no-vec', 'My name is Juno Marsh.');
    const res = await compile(t, { subject_id: 'no-vec' }).expect(200);
    expect(res.body.memories_created).toBeGreaterThan(0);
    const rows = await t.ds.query(`SELECT embedding, needs_embedding FROM memories WHERE subject_id = 'no-vec'`);
    for (const r of rows) expect(r).toEqual({ embedding: null, needs_embedding: true });
  });

  it('answers a semantic search with the text search', async () => {
    const res = await request(t.http).get('/v1/memories/search').query({ subject_id: 'no-vec', q: 'juno marsh', semantic: 'true' }).expect(200);
    // Substring matches, newest first: the episode summary was stored after the fact.
    expect(res.body.memories.map((m: { content: string }) => m.content)).toEqual(['user: My name is Juno Marsh.', 'My name is Juno Marsh.']);
    for (const m of res.body.memories) expect(m).not.toHaveProperty('score');
  });
});

describe('compile with EMBEDDING_PROVIDER=none and COMPILER_TYPE=llm', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_EMBEDDING_PROVIDER: 'none', SERVICE_COMPILER_TYPE: 'llm' });
  });
  afterAll(() => t.close());

  it('compiles with the heuristic compiler and stores no embeddings, none owed', async () => {
    await ingestText(t, 'plain', 'My name is Juno Marsh.');
    const res = await compile(t, { subject_id: 'plain' }).expect(200);
    expect(res.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Juno Marsh.');
    const rows = await t.ds.query(`SELECT embedding, needs_embedding FROM memories WHERE subject_id = 'plain'`);
    for (const r of rows) expect(r).toEqual({ embedding: null, needs_embedding: false });
  });
});
