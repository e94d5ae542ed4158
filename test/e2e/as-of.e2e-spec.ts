import request from 'supertest';
import { compile as compileSql } from 'src/common/db/sql';
import { TenantScope } from 'src/common/db/tenant-scope';
import { VECTOR_MODE } from 'src/db/database.module';
import type { VectorMode } from 'src/db/vector-support';
import { EMBEDDING_PROVIDER } from 'src/modules/models/embedding-provider';
import type { EmbeddingProvider } from 'src/modules/models/embedding-provider.types';
import { MemoriesRepository } from 'src/modules/memories/memories.repository';
import { episodesAsOfCte } from 'src/modules/episodes/episodes-as-of.sql';
import { memoriesAsOfCte } from 'src/modules/memories/memories-as-of.sql';
import { createTestApp, ingestText, TestApp } from '../app-factory';

/**
 * As-of reads (shared/contract/governance.md section 3): `as_of` on context, search and timeline
 * answers as the service would have at that instant, after later ingests, compiles,
 * supersessions and label edits.
 */
type Mem = { id: string; kind: string; content: string; status: string; valid_to: string | null; sensitivity_labels: string[] };
type Ep = { id: string; compiled: boolean };

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('as-of reads', () => {
  let t: TestApp;
  const subject = 'asof-user';
  let before: string;
  let oldPref: Mem;
  let firstEpisodes: string[];
  let lateCompiled: string;
  let bundleThen: { assembled_context: string; facts: Mem[] };

  const compile = () => request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
  const timeline = (asOf?: string) =>
    request(t.http).get('/v1/timeline').query({ subject_id: subject, ...(asOf ? { as_of: asOf } : {}) }).expect(200);

  beforeAll(async () => {
    t = await createTestApp();
    firstEpisodes = [await ingestText(t, subject, 'I prefer email.'), await ingestText(t, subject, 'My name is Ada and I live in Lisbon.')];
    oldPref = (await compile()).body.memories.find((m: Mem) => m.content === 'I prefer email.');
    // Ingested before the instant, compiled only after it.
    lateCompiled = await ingestText(t, subject, 'I am allergic to penicillin.');
    await pause();
    bundleThen = (await request(t.http).post('/v1/context').send({ subject_id: subject, task: 'how to contact the user' }).expect(200)).body;
    before = new Date().toISOString();
    await pause();
    // Afterwards: a new statement supersedes the preference, the late episode is compiled, a label is set.
    await ingestText(t, subject, 'Actually I prefer phone calls now.');
    await compile();
    await request(t.http).patch(`/v1/memories/${bundleThen.facts[0].id}/labels`).send({ sensitivity_labels: ['pii'] }).expect(200);
  });
  afterAll(() => t.close());

  it('timeline: episodes created by then, compiled as they were then; memories in the state they had then', async () => {
    const now = (await timeline()).body;
    const then = (await timeline(before)).body;
    expect(now.episodes).toHaveLength(4);
    expect(then.episodes.map((e: Ep) => e.id)).toEqual([...firstEpisodes, lateCompiled]);
    expect(then.episodes.find((e: Ep) => e.id === lateCompiled).compiled).toBe(false);
    expect(now.episodes.find((e: Ep) => e.id === lateCompiled).compiled).toBe(true);

    expect(now.memories.find((m: Mem) => m.id === oldPref.id)).toMatchObject({ status: 'superseded' });
    expect(now.memories.find((m: Mem) => m.id === oldPref.id).valid_to).not.toBeNull();
    expect(then.memories.find((m: Mem) => m.id === oldPref.id)).toMatchObject({ status: 'active', valid_to: null, content: 'I prefer email.' });
    // Only memories that existed then, none compiled afterwards.
    const createdThen = new Set(then.memories.map((m: Mem) => m.id));
    expect(then.memories.length).toBeLessThan(now.memories.length);
    for (const m of now.memories.filter((x: Mem) => !createdThen.has(x.id))) expect(m.content).not.toBe('I prefer email.');
    expect(then.memories.find((m: Mem) => m.id === bundleThen.facts[0].id).sensitivity_labels).toEqual([]);
    expect(now.memories.find((m: Mem) => m.id === bundleThen.facts[0].id).sensitivity_labels).toEqual(['pii']);
  });

  it('search: the memories active then, with their labels then', async () => {
    const now = await request(t.http).get('/v1/memories/search').query({ subject_id: subject, q: 'prefer' }).expect(200);
    const then = await request(t.http).get('/v1/memories/search').query({ subject_id: subject, q: 'prefer', as_of: before }).expect(200);
    expect(now.body.memories.map((m: Mem) => m.content)).toContain('Actually I prefer phone calls now.');
    expect(now.body.memories.map((m: Mem) => m.id)).not.toContain(oldPref.id);
    // The fact and the episode summary of the first statement; nothing of the later one.
    expect(then.body.memories.map((m: Mem) => m.content).sort()).toEqual(['I prefer email.', 'user: I prefer email.']);
    const semantic = await request(t.http).get('/v1/memories/search').query({ subject_id: subject, q: 'prefer email', semantic: true, as_of: before }).expect(200);
    expect(semantic.body.memories.map((m: Mem) => m.content)).not.toContain('Actually I prefer phone calls now.');
    expect(semantic.body.memories.map((m: Mem) => m.id)).toContain(oldPref.id);
  });

  it('stored-vector search (hosted embeddings) reads as of the instant under pgvector and the exact fallback alike', async () => {
    const [vector] = await t.app.get<EmbeddingProvider>(EMBEDDING_PROVIDER).embed(['I prefer email.']);
    // An embedding write (the backfill) changes nothing a reader sees and leaves no revision.
    await t.ds.query(`UPDATE memories SET embedding = $1::real[] WHERE subject_id = $2`, [vector, subject]);
    const repo = t.app.get(MemoriesRepository);
    const modes: VectorMode[] = t.app.get<VectorMode>(VECTOR_MODE) === 'pgvector' ? ['fallback', 'pgvector'] : ['fallback'];
    for (const mode of modes) {
      const then = await repo.searchSemantic(t.ds.manager, TenantScope.ofRequest(null), mode, { subjectId: subject, vector, limit: 50, asOf: new Date(before) });
      const now = await repo.searchSemantic(t.ds.manager, TenantScope.ofRequest(null), mode, { subjectId: subject, vector, limit: 50 });
      expect(then.map((m) => m.id)).toContain(oldPref.id);
      expect(now.map((m) => m.id)).not.toContain(oldPref.id);
      expect(then.map((m) => m.content)).not.toContain('Actually I prefer phone calls now.');
    }
  });

  it('context: the bundle a read made then assembled, byte for byte', async () => {
    const then = await request(t.http).post('/v1/context').send({ subject_id: subject, task: 'how to contact the user', as_of: before }).expect(200);
    const now = await request(t.http).post('/v1/context').send({ subject_id: subject, task: 'how to contact the user' }).expect(200);
    expect(now.body.assembled_context).not.toBe(bundleThen.assembled_context);
    expect(then.body.assembled_context).toBe(bundleThen.assembled_context);
    expect(then.body.facts.map((m: Mem) => m.id)).toEqual(bundleThen.facts.map((m: Mem) => m.id));
  });

  it('refuses an as_of in the future with 422 naming the field, on all three reads', async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const ctx = await request(t.http).post('/v1/context').send({ subject_id: subject, task: 'x', as_of: future }).expect(422);
    expect(ctx.body.error.details[0].loc).toEqual(['body', 'as_of']);
    const search = await request(t.http).get('/v1/memories/search').query({ subject_id: subject, as_of: future }).expect(422);
    expect(search.body.error.details[0].loc).toEqual(['query', 'as_of']);
    const tl = await request(t.http).get('/v1/timeline').query({ subject_id: subject, as_of: future }).expect(422);
    expect(tl.body.error.details[0].loc).toEqual(['query', 'as_of']);
    await request(t.http).get('/v1/timeline').query({ subject_id: subject, as_of: 'yesterday' }).expect(422);
  });

  it('an instant before the subject existed reads as empty', async () => {
    const then = (await timeline('2001-01-01T00:00:00Z')).body;
    expect(then).toMatchObject({ episodes: [], memories: [] });
  });

  it('forgetting erases the history too: no revision keeps the content, and an earlier as-of read no longer shows it', async () => {
    const revisions = async () => (await t.ds.query('SELECT count(*)::int AS n FROM memory_revisions WHERE memory_id = $1', [oldPref.id]))[0].n;
    expect(await revisions()).toBeGreaterThan(0);
    const current = (await timeline()).body.memories.find((m: Mem) => m.content === 'Actually I prefer phone calls now.' && m.kind === 'profile_fact');
    await request(t.http).delete(`/v1/memories/${current.id}`).expect(200);
    expect(await revisions()).toBe(0);
    const leftovers = await t.ds.query(`SELECT count(*)::int AS n FROM memory_revisions WHERE content LIKE '%prefer%'`);
    expect(leftovers[0].n).toBe(0);
    const then = (await timeline(before)).body.memories.find((m: Mem) => m.id === oldPref.id);
    expect(then).toMatchObject({ status: 'tombstoned', content: '' });
  });

  it('as-of views carry every column of their tables', async () => {
    // The views stand in for the tables under their names; a column added to a table must be added to its view.
    const table = async (name: string) =>
      (await t.ds.query(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND column_name <> 'embedding_vec'`, [name])).map((r: { column_name: string }) => r.column_name).sort();
    const at = new Date();
    const m = compileSql(memoriesAsOfCte(at, { vector: false }));
    const e = compileSql(episodesAsOfCte(at));
    const viewCols = async (fragment: { text: string; values: unknown[] }, name: string) =>
      Object.keys((await t.ds.query(`WITH ${fragment.text} SELECT * FROM ${name} LIMIT 1`, fragment.values))[0]).sort();
    expect(await viewCols(m, 'memories')).toEqual(await table('memories'));
    expect(await viewCols(e, 'episodes')).toEqual(await table('episodes'));
  });
});
