import request from 'supertest';
import { TenantScope } from 'src/common/db/tenant-scope';
import { VECTOR_MODE } from 'src/db/database.module';
import type { VectorMode } from 'src/db/vector-support';
import { EMBEDDING_PROVIDER } from 'src/modules/models/embedding-provider';
import type { EmbeddingProvider } from 'src/modules/models/embedding-provider.types';
import { MemoriesRepository } from 'src/modules/memories/memories.repository';
import { createTestApp, TestApp } from '../app-factory';

interface Seed {
  subject?: string;
  kind?: string;
  content: string;
  status?: string;
  /** Minutes before now: larger is older. */
  age?: number;
}

async function seed(t: TestApp, seeds: Seed[]): Promise<string[]> {
  const provider = t.app.get<EmbeddingProvider>(EMBEDDING_PROVIDER);
  const vectors = await provider.embed(seeds.map((s) => s.content));
  const ids: string[] = [];
  for (const [i, s] of seeds.entries()) {
    const [row] = await t.ds.query(
      `INSERT INTO memories (subject_id, kind, content, summary, status, embedding, created_at, updated_at)
       VALUES ($1, $2, $3, '', $4, $5::real[], now() - make_interval(mins => $6::int), now() - make_interval(mins => $6::int)) RETURNING id`,
      [s.subject ?? 'searcher', s.kind ?? 'profile_fact', s.content, s.status ?? 'active', vectors[i], s.age ?? 0],
    );
    ids.push(row.id);
  }
  return ids;
}

const search = (t: TestApp, query: Record<string, string | number>) => request(t.http).get('/v1/memories/search').query(query);
const contents = (res: request.Response) => res.body.memories.map((m: { content: string }) => m.content);

describe('GET /v1/memories/search', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t, [
      { content: 'Progress is 100% done', age: 9 },
      { content: 'Progress is 100 percent done', age: 8 },
      { content: 'Uses snake_case names', age: 7 },
      { content: 'Uses snakeXcase names', age: 6 },
      { content: 'I love hiking in the mountains every weekend', age: 5 },
      { content: 'My favourite food is sushi', age: 4 },
      { kind: 'procedure', content: 'To reset the router, hold the button for ten seconds', age: 3 },
      { content: 'Mountain hiking boots, size 44', age: 2 },
      { content: 'An old HIKING fact', status: 'superseded', age: 1 },
      { subject: 'someone-else', content: 'Someone else likes hiking too', age: 0 },
    ]);
  });
  afterAll(() => t.close());

  it('lists the subject’s active memories newest first when there is no q, bounded by limit', async () => {
    const res = await search(t, { subject_id: 'searcher' }).expect(200);
    expect(contents(res)).toEqual([
      'Mountain hiking boots, size 44',
      'To reset the router, hold the button for ten seconds',
      'My favourite food is sushi',
      'I love hiking in the mountains every weekend',
      'Uses snakeXcase names',
      'Uses snake_case names',
      'Progress is 100 percent done',
      'Progress is 100% done',
    ]);
    expect(contents(await search(t, { subject_id: 'searcher', limit: 2 }).expect(200))).toEqual(['Mountain hiking boots, size 44', 'To reset the router, hold the button for ten seconds']);
  });

  it('matches q as a case-insensitive substring of content and skips superseded memories', async () => {
    expect(contents(await search(t, { subject_id: 'searcher', q: 'HiKiNg' }).expect(200))).toEqual(['Mountain hiking boots, size 44', 'I love hiking in the mountains every weekend']);
  });

  it('treats % and _ in q as literal characters', async () => {
    expect(contents(await search(t, { subject_id: 'searcher', q: '100%' }).expect(200))).toEqual(['Progress is 100% done']);
    expect(contents(await search(t, { subject_id: 'searcher', q: 'e_c' }).expect(200))).toEqual(['Uses snake_case names']);
    expect(contents(await search(t, { subject_id: 'searcher', q: '%' }).expect(200))).toEqual(['Progress is 100% done']);
  });

  it('filters by kind', async () => {
    expect(contents(await search(t, { subject_id: 'searcher', kind: 'procedure' }).expect(200))).toEqual(['To reset the router, hold the button for ten seconds']);
    expect((await search(t, { subject_id: 'searcher', kind: 'episode_summary' }).expect(200)).body).toEqual({ memories: [] });
  });

  it('returns memories in the compat record shape', async () => {
    const [m] = (await search(t, { subject_id: 'searcher', limit: 1 }).expect(200)).body.memories;
    expect(Object.keys(m).sort()).toEqual(['confidence', 'content', 'created_at', 'id', 'kind', 'metadata', 'origin', 'sensitivity_labels', 'source_episode_ids', 'status', 'subject_id', 'summary', 'updated_at', 'valid_from', 'valid_to']);
    expect(m).toMatchObject({ valid_to: null, source_episode_ids: [], metadata: {}, status: 'active' });
  });

  it('ranks semantic results by cosine similarity with a descending score, active memories of the subject only', async () => {
    const res = await search(t, { subject_id: 'searcher', q: 'hiking in the mountains', semantic: 'true' }).expect(200);
    const found = contents(res);
    expect(found[0]).toBe('I love hiking in the mountains every weekend');
    expect(found).not.toContain('An old HIKING fact');
    expect(found).not.toContain('Someone else likes hiking too');
    expect(found).toHaveLength(8);
    const scores = res.body.memories.map((m: { score: number }) => m.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThan(scores[scores.length - 1]);
  });

  it('gives identical semantic results with pgvector and with the exact real[] fallback', async () => {
    const repo = t.app.get(MemoriesRepository);
    const [vector] = await t.app.get<EmbeddingProvider>(EMBEDDING_PROVIDER).embed(['mountain hiking weekend']);
    const q = { subjectId: 'searcher', vector, limit: 100 };
    const fallback = await repo.searchSemantic(t.ds.manager, TenantScope.ofRequest(null), 'fallback', q);
    const api = (await search(t, { subject_id: 'searcher', q: 'mountain hiking weekend', semantic: '1', limit: 100 }).expect(200)).body.memories;
    expect(api.map((m: { id: string }) => m.id)).toEqual(fallback.map((m) => m.id));
    if (t.app.get<VectorMode>(VECTOR_MODE) === 'pgvector') {
      const native = await repo.searchSemantic(t.ds.manager, TenantScope.ofRequest(null), 'pgvector', q);
      expect(native.map((m) => m.id)).toEqual(fallback.map((m) => m.id));
      native.forEach((m, i) => expect(m.score).toBeCloseTo(fallback[i].score, 5));
    }
  });

  it('falls back to text search for semantic=true without q or with a q that has nothing to embed', async () => {
    expect(contents(await search(t, { subject_id: 'searcher', semantic: 'true', limit: 1 }).expect(200))).toEqual(['Mountain hiking boots, size 44']);
    expect(contents(await search(t, { subject_id: 'searcher', semantic: 'true', q: '%' }).expect(200))).toEqual(['Progress is 100% done']);
  });

  it.each([
    ['limit', 'limit=0', { limit: 0 }],
    ['limit', 'limit=-1', { limit: -1 }],
    ['limit', 'limit=101', { limit: 101 }],
    ['limit', 'limit=1.5', { limit: '1.5' }],
    ['limit', 'limit=ten', { limit: 'ten' }],
    ['limit', 'an empty limit', { limit: '' }],
    ['semantic', 'semantic=yes', { semantic: 'yes' }],
    ['semantic', 'an empty semantic', { semantic: '' }],
    ['kind', 'an empty kind', { kind: '' }],
    ['q', 'a q of 4001 characters', { q: 'x'.repeat(4001) }],
  ])('answers 422 with loc ["query", "%s"] for %s', async (field, _label, extra) => {
    const res = await search(t, { subject_id: 'searcher', ...extra }).expect(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { loc: string[] }) => d.loc)).toContainEqual(['query', field]);
  });

  it.each([
    ['a missing subject_id', {}],
    ['an empty subject_id', { subject_id: '' }],
    ['a subject_id of 257 characters', { subject_id: 'x'.repeat(257) }],
  ])('answers 422 naming subject_id for %s', async (_label, query) => {
    const res = await search(t, query).expect(422);
    expect(res.body.error.details.map((d: { loc: string[] }) => d.loc)).toContainEqual(['query', 'subject_id']);
  });

  it.each([
    ['kind=no_such_kind', { kind: 'no_such_kind' }],
    ['kind=raw_episode (a ranking label, not a stored kind)', { kind: 'raw_episode' }],
    ['an unknown kind with a text query', { kind: 'custom_kind', q: 'sushi' }],
    ['an unknown kind in a semantic search', { kind: 'custom_kind', q: 'sushi', semantic: 'true' }],
  ])('answers 200 with an empty list for %s (kinds are open-ended for clients)', async (_label, extra) => {
    expect((await search(t, { subject_id: 'searcher', ...extra }).expect(200)).body).toEqual({ memories: [] });
  });

  it('accepts the limit bounds 1 and 100 and semantic spelled 0 or false', async () => {
    expect((await search(t, { subject_id: 'searcher', limit: 1 }).expect(200)).body.memories).toHaveLength(1);
    expect((await search(t, { subject_id: 'searcher', limit: 100, semantic: '0' }).expect(200)).body.memories).toHaveLength(8);
    expect((await search(t, { subject_id: 'searcher', semantic: 'false', q: 'sushi' }).expect(200)).body.memories).toHaveLength(1);
  });
});

describe('semantic search over a large subject with the local (stub) embedding', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // 400 newer fillers push the two older facts out of the newest-200 part of the pool.
    const fillers = Array.from({ length: 400 }, (_, i) => ({ subject: 'big', content: `Filler note number ${i} about nothing in particular`, age: 10 + i }));
    await seed(t, [
      { subject: 'big', content: 'Our staging webhooks keep timing out', age: 5000 },
      { subject: 'big', content: 'Prefers email over phone', age: 5001 },
      ...fillers,
    ]);
  });
  afterAll(() => t.close());

  it('finds an old memory that shares a word with the query, ranked first by cosine', async () => {
    const res = await search(t, { subject_id: 'big', q: 'webhook timeouts on staging', semantic: 'true', limit: 5 }).expect(200);
    expect(contents(res)[0]).toBe('Our staging webhooks keep timing out');
    const scores = res.body.memories.map((m: { score: number }) => m.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('scores each memory with the cosine of its stored embedding', async () => {
    const repo = t.app.get(MemoriesRepository);
    const [vector] = await t.app.get<EmbeddingProvider>(EMBEDDING_PROVIDER).embed(['webhook timeouts on staging']);
    const exact = await repo.searchSemantic(t.ds.manager, TenantScope.ofRequest(null), 'fallback', { subjectId: 'big', vector, limit: 100 });
    const api = (await search(t, { subject_id: 'big', q: 'webhook timeouts on staging', semantic: 'true', limit: 100 }).expect(200)).body.memories;
    const exactById = new Map(exact.map((m) => [m.id, m.score]));
    for (const m of api as { id: string; score: number }[]) {
      if (exactById.has(m.id)) expect(m.score).toBeCloseTo(exactById.get(m.id)!, 9);
    }
    expect(api[0].id).toBe(exact[0].id);
  });

  it('leaves out memories that neither share a word with the query nor are among the newest', async () => {
    const res = await search(t, { subject_id: 'big', q: 'email', semantic: 'true', limit: 100 }).expect(200);
    const found = contents(res);
    expect(found[0]).toBe('Prefers email over phone');
    expect(found).not.toContain('Our staging webhooks keep timing out');
  });
});

describe('GET /v1/memories/search with EMBEDDING_PROVIDER=none', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_EMBEDDING_PROVIDER: 'none' });
  });
  afterAll(() => t.close());

  it('answers semantic=true with the text search', async () => {
    await t.ds.query(`INSERT INTO memories (subject_id, kind, content) VALUES ('plain', 'profile_fact', 'Likes tea'), ('plain', 'profile_fact', 'Likes coffee')`);
    const res = await search(t, { subject_id: 'plain', q: 'TEA', semantic: 'true' }).expect(200);
    expect(contents(res)).toEqual(['Likes tea']);
  });
});
