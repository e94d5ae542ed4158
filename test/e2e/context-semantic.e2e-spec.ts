import request from 'supertest';
import { VECTOR_MODE } from 'src/db/database.tokens';
import type { VectorMode } from 'src/db/vector-support';
import { createTestApp, ingestText, isPglite, TestApp } from '../app-factory';
import { embeddingsReply, FakeOpenAIServer, FakeRequest } from '../fake-openai-server';

const DIMS = 64;

/**
 * A "model" that knows one meaning: money coming back to the customer. A text about it points
 * along the first axis whatever its words; every text also gets a small component of its own
 * (a hash of it), so no two texts are identical and no vector is zero.
 */
function meaningVector(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  v[1 + (h % (DIMS - 1))] = 0.2;
  if (/money|reimburs|refund|billed twice/i.test(text)) v[0] = 1;
  else v[1 + ((h >>> 8) % (DIMS - 1))] += 1;
  return v;
}

const CHORES = ['painted the fence', 'fixed the bicycle chain', 'watered the tomatoes', 'cleaned the garage', 'walked the dog', 'baked bread', 'tuned the guitar', 'washed the car'];
const PLACES = ['harbour', 'library', 'orchard', 'station', 'market', 'stadium', 'museum', 'bakery'];

type Explained = { text: string | null; included: boolean; components: { relevance: number } | null };

describe('POST /v1/context with a hosted embedding (OpenAI-compatible, a fake server)', () => {
  const fake = new FakeOpenAIServer(DIMS);
  const task = 'How do I get my money back?';
  let t: TestApp;

  /** A subject whose memory about the task (no word in common with it) has `newer` chores compiled after it. */
  async function subjectWithChoresAfter(subject: string, newer: number): Promise<void> {
    await ingestText(t, subject, 'Please arrange a reimbursement for invoice 7, I was billed twice in March.');
    await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
    for (let i = 0; i < newer; i++) await ingestText(t, subject, `On day ${i + 1} we ${CHORES[i % 8]} near the ${PLACES[(i * 3) % 8]} with neighbour number ${i + 1}.`);
    await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
  }

  async function explain(subject: string): Promise<{ context: string; best: number; about: Explained[] }> {
    const res = await request(t.http).post('/v1/context').send({ subject_id: subject, task, max_tokens: 150 }).expect(200);
    const explained = await request(t.http).post('/v1/context/explain').send({ subject_id: subject, task, max_tokens: 150 }).expect(200);
    const candidates: Explained[] = explained.body.candidates;
    return {
      context: res.body.assembled_context,
      best: Math.max(...candidates.map((c) => c.components?.relevance ?? 0)),
      about: candidates.filter((c) => /reimbursement/.test(c.text ?? '')),
    };
  }

  beforeAll(async () => {
    await fake.start();
    fake.defaults['/v1/embeddings'] = (req: FakeRequest) => {
      const input: string[] = Array.isArray(req.body.input) ? req.body.input : [req.body.input];
      return embeddingsReply(input.map(meaningVector));
    };
    // The heuristic compiler (no chat model): only the embedding provider changes.
    t = await createTestApp({
      SERVICE_EMBEDDING_PROVIDER: 'openai',
      SERVICE_OPENAI_BASE_URL: fake.url,
      SERVICE_OPENAI_API_KEY: 'sk-test-semantic',
      SERVICE_OPENAI_EMBEDDING_MODEL: 'fake-embed',
      SERVICE_EMBEDDING_DIMENSIONS: String(DIMS),
    });
    await subjectWithChoresAfter('semantic-recent', 8);
    await subjectWithChoresAfter('semantic-buried', 40);
  });
  afterAll(async () => {
    await t?.close();
    await fake.stop();
  });

  it('stores an embedding for every memory (the provider is plugged in by settings alone)', async () => {
    const [row] = await t.ds.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE cardinality(embedding) = $2)::int AS embedded FROM memories WHERE subject_id = $1`, ['semantic-buried', DIMS]);
    expect(row.n).toBeGreaterThan(40);
    expect(row.embedded).toBe(row.n);
  });

  it('ranks first, above newer memories, a fetched memory near the task by embedding that shares no word with it (both engines)', async () => {
    const { context, best, about } = await explain('semantic-recent');
    expect(context).toContain('reimbursement for invoice 7');
    expect(about.length).toBeGreaterThan(0);
    // Semantic relevance: above the text scale's 5, from the embedding alone.
    expect(about[0].components!.relevance).toBe(best);
    expect(about[0].components!.relevance).toBeGreaterThan(5);
    expect(about[0].included).toBe(true);
  });

  it('fetches such a memory however old under pgvector; without it the fetch stays bounded and does not scan for it', async () => {
    const mode = t.app.get<VectorMode>(VECTOR_MODE);
    expect(mode).toBe(isPglite() ? 'pgvector' : 'fallback');
    const { context, best, about } = await explain('semantic-buried');
    if (mode === 'pgvector') {
      expect(context).toContain('reimbursement for invoice 7');
      expect(about[0].components!.relevance).toBe(best);
      expect(about[0].included).toBe(true);
    } else {
      // 40 newer memories fill the newest-items branches, and no text hit holds a task word.
      expect(about).toEqual([]);
      expect(context).not.toContain('reimbursement');
    }
  });
});
