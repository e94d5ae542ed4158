import { Writable } from 'node:stream';
import request from 'supertest';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { EmbeddingBackfillService } from 'src/modules/memories/embeddings/embedding-backfill';
import { PROMPT_VERSION } from 'src/modules/memories/llm/prompts';
import { createTestApp, ingestText, TestApp } from '../app-factory';
import { chatReply, embeddingsReply, errorReply, FakeOpenAIServer, memoriesReply, promptEpisodes } from '../fake-openai-server';

const API_KEY = 'sk-test-never-log-this-4f9d2c';
const CHAT = '/v1/chat/completions';
const EMBED = '/v1/embeddings';
const DIMS = 64;

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    this.text += chunk.toString('utf8');
    done();
  }
}

function llmEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SERVICE_COMPILER_TYPE: 'llm',
    SERVICE_EMBEDDING_PROVIDER: 'openai',
    SERVICE_OPENAI_BASE_URL: url,
    SERVICE_OPENAI_API_KEY: API_KEY,
    SERVICE_LLM_COMPILER_MODEL: 'fake-chat',
    SERVICE_OPENAI_EMBEDDING_MODEL: 'fake-embed',
    SERVICE_EMBEDDING_DIMENSIONS: String(DIMS),
    SERVICE_LLM_TIMEOUT: '0.5',
    SERVICE_EMBEDDING_TIMEOUT: '0.5',
    SERVICE_LLM_MAX_RETRIES: '1',
    SERVICE_LOG_LEVEL: 'debug',
    ...extra,
  };
}


const compile = (t: TestApp, subject: string) => request(t.http).post('/v1/memories/compile').send({ subject_id: subject });

async function stored(t: TestApp, subject: string) {
  return t.ds.query(
    `SELECT id, kind, content, status, superseded_by, valid_to, metadata, needs_embedding, cardinality(embedding) AS dims
     FROM memories WHERE subject_id = $1 ORDER BY created_at`,
    [subject],
  );
}

async function uncompiled(t: TestApp, subject: string): Promise<number> {
  const [row] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = $1 AND last_compiled_at IS NULL`, [subject]);
  return row.n;
}

describe('COMPILER_TYPE=llm and EMBEDDING_PROVIDER=openai against an OpenAI-compatible server', () => {
  const fake = new FakeOpenAIServer(DIMS);
  const logs = new Capture();
  let t: TestApp;

  beforeAll(async () => {
    await fake.start();
    t = await createTestApp(llmEnv(fake.url), { logStream: logs });
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });
  beforeEach(() => fake.reset());

  it('runs the memory loop: ingest, compile, semantic search, supersede', async () => {
    const first = await ingestText(t, 'loop', 'My name is Juno Marsh. I prefer email.');
    const res = await compile(t, 'loop').expect(200);
    expect(res.body.memories.map((m: { kind: string; content: string }) => [m.kind, m.content])).toEqual([
      ['episode_summary', 'user: My name is Juno Marsh. I prefer email.'],
      ['profile_fact', 'My name is Juno Marsh.'],
      ['profile_fact', 'I prefer email.'],
    ]);
    for (const m of res.body.memories) {
      expect(m).toMatchObject({ status: 'active', valid_to: null, source_episode_ids: [first], metadata: { compiler: `llm:fake-chat:${PROMPT_VERSION}` } });
    }
    for (const row of await stored(t, 'loop')) expect(row).toMatchObject({ needs_embedding: false, dims: DIMS });
    // The model got the episode under an alias and the structured-output schema.
    const [chat] = fake.requestsTo(CHAT);
    expect(chat.body).toMatchObject({ model: 'fake-chat', temperature: 0, response_format: { type: 'json_schema' } });
    expect(chat.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(fake.requestsTo(EMBED)[0].body).toMatchObject({ model: 'fake-embed', encoding_format: 'float' });

    const search = await request(t.http).get('/v1/memories/search').query({ subject_id: 'loop', q: 'what is the name', semantic: 'true' }).expect(200);
    expect(search.body.memories[0]).toMatchObject({ content: 'My name is Juno Marsh.', score: expect.any(Number) });

    const second = await ingestText(t, 'loop', 'Actually I prefer phone calls now.');
    const again = await compile(t, 'loop').expect(200);
    const phone = again.body.memories.find((m: { content: string }) => m.content === 'Actually I prefer phone calls now.');
    expect(phone).toMatchObject({ kind: 'profile_fact', source_episode_ids: [second] });
    // The second request showed the stored facts, so the model could supersede instead of duplicating.
    expect(fake.requestsTo(CHAT)[1].body.messages[1].content).toContain('profile_fact: I prefer email.');
    const email = (await stored(t, 'loop')).find((m: { content: string }) => m.content === 'I prefer email.');
    expect(email).toMatchObject({ status: 'superseded', superseded_by: phone.id, valid_to: expect.any(Date) });
    const facts = await request(t.http).get('/v1/memories/search').query({ subject_id: 'loop', kind: 'profile_fact' }).expect(200);
    expect(facts.body.memories.map((m: { content: string }) => m.content).sort()).toEqual(['Actually I prefer phone calls now.', 'My name is Juno Marsh.']);
    // Idempotent: nothing new, no model call.
    fake.reset();
    expect((await compile(t, 'loop').expect(200)).body.memories_created).toBe(0);
    expect(fake.requestsTo(CHAT)).toHaveLength(0);
  });

  it('compiles asynchronously through the job worker the same way', async () => {
    await ingestText(t, 'async-llm', 'My name is Ada.');
    const { body } = await request(t.http).post('/v1/memories/compile').send({ subject_id: 'async-llm', async: true }).expect(202);
    await t.app.get(CompileJobsWorker).runOnce();
    const job = await request(t.http).get(`/v1/memories/compile/${body.job_id}`).expect(200);
    expect(job.body).toMatchObject({ status: 'completed', memories_created: 2 });
    expect(job.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Ada.');
  });

  it('waits out a 429 with Retry-After and then succeeds', async () => {
    await ingestText(t, 'r429', 'My name is Bo.');
    fake.chat(errorReply(429, 'slow down', { 'retry-after': '1' }));
    const started = Date.now();
    const res = await compile(t, 'r429').expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(res.body.memories_created).toBe(2);
    expect(fake.requestsTo(CHAT)).toHaveLength(2);
  });

  it('retries a 500 from the chat and the embeddings endpoints and then succeeds', async () => {
    await ingestText(t, 'r500', 'My name is Cy.');
    fake.chat(errorReply(500, 'boom'));
    fake.embeddings(errorReply(503, 'warming up'));
    const res = await compile(t, 'r500').expect(200);
    expect(res.body.memories_created).toBe(2);
    expect(fake.requestsTo(CHAT)).toHaveLength(2);
    expect(fake.requestsTo(EMBED)).toHaveLength(2);
    for (const row of await stored(t, 'r500')) expect(row).toMatchObject({ needs_embedding: false, dims: DIMS });
  });

  it('stores memories flagged needs_embedding when embeddings time out, and the backfill embeds them once the provider recovers', async () => {
    await ingestText(t, 'slow-embed', 'My name is Di.');
    fake.embeddings({ hang: true }, { hang: true });
    const res = await compile(t, 'slow-embed').expect(200);
    expect(res.body.memories_created).toBe(2);
    for (const row of await stored(t, 'slow-embed')) expect(row).toMatchObject({ needs_embedding: true, dims: null });
    expect(logs.text).toContain('timed out after 0.5 s');

    const backfill = t.app.get(EmbeddingBackfillService);
    fake.embeddings(errorReply(500, 'still down'), errorReply(500, 'still down'));
    expect(await backfill.runOnce()).toMatchObject({ embedded: 0, remaining: 2, error: expect.stringContaining('HTTP 500') });
    expect(await backfill.runOnce()).toMatchObject({ embedded: 2, remaining: 0, error: null });
    for (const row of await stored(t, 'slow-embed')) expect(row).toMatchObject({ needs_embedding: false, dims: DIMS });
  });

  it('fails the compile with 503 when the chat model times out, storing nothing and leaving the episodes uncompiled', async () => {
    await ingestText(t, 'slow-chat', 'My name is Ed.');
    fake.chat({ hang: true }, { hang: true });
    const res = await compile(t, 'slow-chat').expect(503);
    expect(res.body.error).toMatchObject({ code: 'service_unavailable', details: { reason: 'model_unavailable', model: 'fake-chat' } });
    expect(res.body.error.message).toContain('timed out');
    expect(await stored(t, 'slow-chat')).toEqual([]);
    expect(await uncompiled(t, 'slow-chat')).toBe(1);
    expect((await compile(t, 'slow-chat').expect(200)).body.memories_created).toBe(2);
  });

  it('repairs a malformed reply with one retry that shows the model its error', async () => {
    await ingestText(t, 'repair', 'My name is Flo.');
    fake.chat(chatReply('Sure! Here are the memories: {"memories": [ {"kind": '));
    const res = await compile(t, 'repair').expect(200);
    expect(res.body.memories_created).toBe(2);
    const [, second] = fake.requestsTo(CHAT);
    expect(second.body.messages).toHaveLength(4);
    expect(second.body.messages[2]).toMatchObject({ role: 'assistant' });
    expect(second.body.messages[3].content).toContain('not valid JSON');
  });

  it('fails clearly when the reply is malformed twice: nothing stored, episodes uncompiled, async job failed', async () => {
    await ingestText(t, 'garbage', 'My name is Gus.');
    fake.chat(chatReply('not json'), chatReply('{"memories": "nope"}'));
    const res = await compile(t, 'garbage').expect(503);
    expect(res.body.error.details).toMatchObject({ reason: 'invalid_output', prompt_version: PROMPT_VERSION });
    expect(res.body.error.message).toContain('unusable output twice');
    expect(await stored(t, 'garbage')).toEqual([]);
    expect(await uncompiled(t, 'garbage')).toBe(1);

    fake.chat(chatReply(''), chatReply('```json\n[not json]\n```'));
    const { body } = await request(t.http).post('/v1/memories/compile').send({ subject_id: 'garbage', async: true }).expect(202);
    await t.app.get(CompileJobsWorker).runOnce();
    const job = await request(t.http).get(`/v1/memories/compile/${body.job_id}`).expect(200);
    // Tenants see a generic message with a request id; the model's failure detail goes to the log.
    expect(job.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/^Compile failed \(request id job:[0-9a-f-]{36}\)/) });
    expect(await uncompiled(t, 'garbage')).toBe(1);
  });

  it('drops invalid items one by one (hallucinated ids, unknown kinds, empty content, bad confidence) and stores the valid ones', async () => {
    const id = await ingestText(t, 'picky', 'My name is Hal.');
    fake.chat((req) => {
      const [e] = promptEpisodes(req.body.messages[1].content);
      const ok = { kind: 'profile_fact', content: 'My name is Hal.', summary: 'name', confidence: 0.9, source_episode_ids: [e.alias], supersedes_memory_id: null };
      return memoriesReply([
        ok,
        { ...ok, content: 'invented', source_episode_ids: ['E99'] },
        { ...ok, content: 'made-up uuid', source_episode_ids: ['00000000-0000-4000-8000-000000000000'] },
        { ...ok, content: 'wrong kind', kind: 'opinion' },
        { ...ok, content: '   ' },
        { ...ok, content: 'too sure', confidence: 7 },
        { ...ok, content: 'ghost supersede', supersedes_memory_id: 'M42' },
        { ...ok, kind: 'episode_summary', content: 'user: introduced himself as Hal', source_episode_ids: [id] },
        'not an object',
      ]);
    });
    const res = await compile(t, 'picky').expect(200);
    expect(res.body.memories.map((m: { content: string }) => m.content)).toEqual(['My name is Hal.', 'user: introduced himself as Hal']);
    expect(logs.text).toContain('llm items rejected');
    expect(logs.text).toContain('unknown source episode');
  });

  it('never stores vectors of the wrong size: the memories are flagged and the error names the setting', async () => {
    await ingestText(t, 'dims', 'My name is Ivy.');
    fake.embeddings(embeddingsReply([new Array(32).fill(0.1), new Array(32).fill(0.1)]));
    const res = await compile(t, 'dims').expect(200);
    expect(res.body.memories_created).toBe(2);
    for (const row of await stored(t, 'dims')) expect(row).toMatchObject({ needs_embedding: true, dims: null });
    expect(logs.text).toContain('returned 32 dimensions but SERVICE_EMBEDDING_DIMENSIONS is 64');
    fake.embeddings((req) => embeddingsReply(req.body.input.map(() => new Array(32).fill(0.1))));
    expect(await t.app.get(EmbeddingBackfillService).runOnce()).toMatchObject({ embedded: 0, error: expect.stringContaining('configuration error') });
    for (const row of await stored(t, 'dims')) expect(row.dims).toBeNull();
  });

  it('falls back to text search when the query embedding fails', async () => {
    fake.embeddings(errorReply(400, 'bad request'));
    const res = await request(t.http).get('/v1/memories/search').query({ subject_id: 'loop', q: 'Juno', semantic: 'true' }).expect(200);
    expect(res.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Juno Marsh.');
    for (const m of res.body.memories) expect(m).not.toHaveProperty('score');
  });

  it('never writes the API key to the logs', () => {
    expect(logs.text.length).toBeGreaterThan(0);
    expect(logs.text).not.toContain(API_KEY);
  });
});

describe('llm compiler guards: episodes per compile, token chunks, heuristic fallback', () => {
  const fake = new FakeOpenAIServer(DIMS);
  let t: TestApp;

  beforeAll(async () => {
    await fake.start();
    t = await createTestApp(
      llmEnv(fake.url, { SERVICE_LLM_FALLBACK_TO_HEURISTIC: 'true', SERVICE_LLM_MAX_EPISODES_PER_COMPILE: '3', SERVICE_LLM_CHUNK_TOKENS: '256', SERVICE_LOG_LEVEL: 'silent' }),
    );
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });
  beforeEach(() => fake.reset());

  it('compiles at most LLM_MAX_EPISODES_PER_COMPILE episodes per call, in token-bounded chunks; the rest waits', async () => {
    const filler = 'We talked about the weather and the garden and the long walk by the river for a while. '.repeat(6);
    for (let i = 0; i < 4; i++) await ingestText(t, 'bounded', `${filler} My name is Kit ${i}.`);
    const first = await compile(t, 'bounded').expect(200);
    expect(new Set(first.body.memories.flatMap((m: { source_episode_ids: string[] }) => m.source_episode_ids)).size).toBe(3);
    expect(await uncompiled(t, 'bounded')).toBe(1);
    expect(fake.requestsTo(CHAT).length).toBeGreaterThanOrEqual(2);
    for (const req of fake.requestsTo(CHAT)) expect(promptEpisodes(req.body.messages[1].content).length).toBeLessThanOrEqual(2);
    await compile(t, 'bounded').expect(200);
    expect(await uncompiled(t, 'bounded')).toBe(0);
  });

  it('compiles with the heuristic compiler when the model fails and LLM_FALLBACK_TO_HEURISTIC is on', async () => {
    await ingestText(t, 'fallback', 'My name is Lou.');
    fake.chat(chatReply('nope'), chatReply('still nope'));
    const res = await compile(t, 'fallback').expect(200);
    expect(res.body.memories.map((m: { content: string }) => m.content)).toContain('My name is Lou.');
    for (const m of res.body.memories) expect(m.metadata.compiler).toBe('heuristic-1');
  });
});

describe('chat and embeddings on separate servers with their own keys (LLM_BASE_URL, EMBEDDING_BASE_URL)', () => {
  const chatServer = new FakeOpenAIServer(DIMS);
  const embedServer = new FakeOpenAIServer(DIMS);
  const CHAT_KEY = 'sk-chat-only-1b2c3d';
  const EMBED_KEY = 'sk-embed-only-9e8f7a';
  let t: TestApp;

  beforeAll(async () => {
    await chatServer.start();
    await embedServer.start();
    // OPENAI_BASE_URL points nowhere useful: each kind must go to its own server.
    t = await createTestApp(
      llmEnv('http://127.0.0.1:9/v1', {
        SERVICE_OPENAI_API_KEY: '',
        SERVICE_LLM_BASE_URL: chatServer.url,
        SERVICE_LLM_API_KEY: CHAT_KEY,
        SERVICE_EMBEDDING_BASE_URL: embedServer.url,
        SERVICE_EMBEDDING_API_KEY: EMBED_KEY,
        SERVICE_LOG_LEVEL: 'silent',
      }),
    );
  });
  afterAll(async () => {
    await t.close();
    await chatServer.stop();
    await embedServer.stop();
  });

  it('sends chat to the LLM server and embeddings to the embedding server, each with its key, and counts both', async () => {
    await ingestText(t, 'split', 'My name is Ada and I prefer tea.');
    const res = await compile(t, 'split').expect(200);
    expect(res.body.memories.length).toBeGreaterThan(0);
    expect(chatServer.requestsTo(CHAT).length).toBeGreaterThan(0);
    expect(chatServer.requestsTo(EMBED)).toEqual([]);
    expect(embedServer.requestsTo(EMBED).length).toBeGreaterThan(0);
    expect(embedServer.requestsTo(CHAT)).toEqual([]);
    for (const r of chatServer.requestsTo(CHAT)) expect(r.headers.authorization).toBe(`Bearer ${CHAT_KEY}`);
    for (const r of embedServer.requestsTo(EMBED)) expect(r.headers.authorization).toBe(`Bearer ${EMBED_KEY}`);
    const [row] = await t.ds.query(`SELECT count(*)::int AS n FROM memories WHERE subject_id = 'split' AND needs_embedding`);
    expect(row.n).toBe(0);
    const scrape = (await request(t.http).get('/metrics').expect(200)).text;
    expect(scrape).toMatch(/memory_model_requests_total\{kind="chat",outcome="ok"\} [1-9]/);
    expect(scrape).toMatch(/memory_model_requests_total\{kind="embeddings",outcome="ok"\} [1-9]/);
    expect(scrape).toMatch(/memory_model_request_duration_seconds_count\{kind="chat"\} [1-9]/);
  });
});
