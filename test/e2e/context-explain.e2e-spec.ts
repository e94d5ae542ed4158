import request from 'supertest';
import { countTokens } from 'src/common/text/tokenizer';
import { createTestApp, TestApp } from '../app-factory';

interface Candidate {
  id: string;
  source: 'memory' | 'episode';
  kind: string;
  text: string | null;
  session_id: string | null;
  in_session: boolean;
  score: number | null;
  components: { kind_priority: number; recency: number; relevance: number; validity: number } | null;
  included: boolean;
  reason: string | null;
  rank: number | null;
  section: string | null;
  tokens: number | null;
  policy_rule_id: string | null;
  policy_action: string | null;
}
interface Explanation {
  bundle: { assembled_context: string; token_estimate: number; provenance: Record<string, string[]>; receipt_id: string | null };
  max_tokens: number;
  session_id: string | null;
  candidates: Candidate[];
  sections: { heading: string; tokens: number; items: number }[];
}

const turn = (subject_id: string, content: string, session_id: string) => ({ subject_id, source: 'user', type: 'conversation', session_id, payload: { messages: [{ role: 'user', content }] } });

describe('POST /v1/context/explain', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
    const acme = (r: request.Test) => r.set('X-Tenant-ID', 'acme');
    await acme(request(t.http).post('/v1/episodes/batch'))
      .send({
        episodes: [
          turn('kim', 'My name is Kim Lee and I prefer email.', 's1'),
          turn('kim', 'I am allergic to penicillin.', 's1'),
          turn('kim', 'The renewal is due in May and the invoice went to finance.', 's2'),
          turn('kim', 'Please send the quote as a PDF.', 's2'),
        ],
      })
      .expect(201);
    await acme(request(t.http).post('/v1/memories/compile')).send({ subject_id: 'kim' }).expect(200);
    const found = await acme(request(t.http).get('/v1/memories/search?subject_id=kim&q=penicillin&kind=profile_fact')).expect(200);
    await acme(request(t.http).patch(`/v1/memories/${found.body.memories[0].id}/labels`)).send({ sensitivity_labels: ['health'] }).expect(200);
    await request(t.http).put('/admin/policy?tenant_id=acme').send({ yaml: 'version: 1\nmode: enforce\nrules:\n  - id: no-health\n    deny_labels: [health]\n' }).expect(200);
  });
  afterAll(() => t.close());

  const explain = (body: Record<string, unknown>, tenant = 'acme') => request(t.http).post('/v1/context/explain').set('X-Tenant-ID', tenant).send(body);

  it('returns the bundle POST /v1/context gives for the same request, and a component table that adds up', async () => {
    const body = { subject_id: 'kim', task: 'How should we send the renewal quote?', max_tokens: 400, session_id: 's2' };
    const plain = await request(t.http).post('/v1/context').set('X-Tenant-ID', 'acme').send(body).expect(200);
    const res = await explain(body).expect(200);
    const x = res.body as Explanation;
    expect(x.bundle.assembled_context).toBe(plain.body.assembled_context);
    expect(x.bundle.provenance).toEqual(plain.body.provenance);
    expect(x.max_tokens).toBe(400);
    expect(x.session_id).toBe('s2');
    const scored = x.candidates.filter((c) => c.score !== null);
    expect(scored.length).toBeGreaterThan(4);
    for (const c of scored) {
      const k = c.components!;
      expect(c.score).toBeCloseTo(k.kind_priority + k.recency + k.relevance + k.validity, 2);
      expect(c.tokens).toBeGreaterThan(0);
    }
    // Ranked candidates come best score first.
    const scores = scored.map((c) => c.score!);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // The included ones are exactly the bundle's items, in render order.
    const included = x.candidates.filter((c) => c.included).sort((a, b) => a.rank! - b.rank!);
    const bundleIds = [...x.bundle.provenance.fact_ids, ...x.bundle.provenance.summary_ids, ...x.bundle.provenance.procedure_ids, ...x.bundle.provenance.episode_ids];
    expect(included.map((c) => c.id).sort()).toEqual([...bundleIds].sort());
    expect(included.every((c) => c.reason === null && c.section !== null)).toBe(true);
    // The session's items get the top recency.
    for (const c of scored.filter((c) => c.in_session)) expect(c.components!.recency).toBe(5);
    expect(scored.some((c) => c.in_session && c.section === '### Current session (s2)')).toBe(true);
  });

  it('scores memories by their words alone under the lexical stub embedding: relevance on the text scale, little without a task word', async () => {
    const x = (await explain({ subject_id: 'kim', task: 'When is the renewal due?', max_tokens: 400 }).expect(200)).body as Explanation;
    const memories = x.candidates.filter((c) => c.source === 'memory' && c.components !== null);
    expect(memories.length).toBeGreaterThan(0);
    // The stub's cosine is word overlap without rarity weights; it is not semantic relevance (0–8).
    for (const c of memories) expect(c.components!.relevance).toBeLessThanOrEqual(5);
    // Facts stand alone (summaries inherit a share of a neighbouring turn's match).
    const unrelated = memories.filter((c) => c.kind === 'profile_fact' && !/renewal|due/i.test(c.text ?? ''));
    expect(unrelated.length).toBeGreaterThan(0);
    // A fact without a task word gets at most what a word near one brings (expansion.ts: the task's
    // "renewal" brings in "name" at a quarter of its cosine).
    for (const c of unrelated) expect(c.components!.relevance).toBeLessThan(1);
    expect(memories.some((c) => /renewal/i.test(c.text ?? '') && c.components!.relevance > 1)).toBe(true);
  });

  it('matches a task that names a date against the date label each episode is shown under', async () => {
    const dated = (content: string, date: string, session_id: string) => ({ ...turn('dana', content, session_id), payload: { messages: [{ role: 'Dana', content }], date } });
    await request(t.http)
      .post('/v1/episodes/batch')
      .set('X-Tenant-ID', 'acme')
      .send({ episodes: [dated('We went camping by the lake.', '2:01 pm on 27 June, 2023', 'd1'), dated('We went camping in the forest.', '9:12 am on 14 July, 2023', 'd2')] })
      .expect(201);
    const relevance = async (task: string): Promise<Record<string, number>> => {
      const x = (await explain({ subject_id: 'dana', task, max_tokens: 400 }).expect(200)).body as Explanation;
      const episodes = x.candidates.filter((c) => c.source === 'episode');
      return Object.fromEntries(episodes.map((c) => [/forest/.test(c.text ?? '') ? 'july' : 'june', c.components!.relevance]));
    };
    const named = await relevance('When did Dana go camping in July?');
    expect(named.july).toBe(5);
    expect(named.june).toBeLessThan(named.july);
    const plain = await relevance('When did Dana go camping?');
    expect(plain.june).toBeCloseTo(plain.july, 5);
  });

  it('expands the task with the word vectors: an episode that says what the task asks in other words scores, one unrelated does not', async () => {
    await request(t.http)
      .post('/v1/episodes/batch')
      .set('X-Tenant-ID', 'acme')
      .send({
        episodes: [
          turn('jon', 'I started kickboxing classes last month.', 'j1'),
          turn('jon', 'I fixed the brakes on my bike yesterday.', 'j2'),
          turn('jon', 'We watched a martial arts film on Friday.', 'j3'),
        ],
      })
      .expect(201);
    const x = (await explain({ subject_id: 'jon', task: 'Which martial arts has he tried?', max_tokens: 400 }).expect(200)).body as Explanation;
    const relevance = Object.fromEntries(
      x.candidates.filter((c) => c.source === 'episode').map((c) => [/kickboxing/.test(c.text ?? '') ? 'kick' : /bike/.test(c.text ?? '') ? 'bike' : 'film', c.components!.relevance]),
    );
    // The task's own words score highest; "kickboxing" shares none but is near "martial" (and
    // "started" near "tried"), so it scores below them, above the unrelated turn.
    expect(relevance.film).toBe(5);
    expect(relevance.kick).toBeGreaterThan(0);
    expect(relevance.kick).toBeLessThan(relevance.film);
    expect(relevance.bike).toBe(0);
  });

  it('names why an item was left out: policy denial (without its text), duplicate, budget', async () => {
    const x = (await explain({ subject_id: 'kim', task: 'allergy penicillin name email renewal', max_tokens: 60 }).expect(200)).body as Explanation;
    const denied = x.candidates.find((c) => c.reason === 'policy_denied');
    expect(denied).toMatchObject({ source: 'memory', text: null, score: null, included: false, policy_rule_id: 'no-health', policy_action: 'denied' });
    expect(Object.values(x.bundle.provenance).flat()).not.toContain(denied!.id);
    expect(x.bundle.assembled_context).not.toContain('- I am allergic to penicillin');
    // A short turn's summary repeats it: one of the two is dropped as a duplicate.
    expect(x.candidates.some((c) => c.reason === 'duplicate')).toBe(true);
    expect(x.candidates.some((c) => c.reason === 'budget')).toBe(true);
    expect(x.candidates.filter((c) => !c.included).every((c) => c.reason !== null)).toBe(true);
  });

  it('costs each section in tokens: the parts add up to the bundle', async () => {
    const x = (await explain({ subject_id: 'kim', task: 'Summarize the customer', max_tokens: 2000 }).expect(200)).body as Explanation;
    expect(x.sections[0]).toMatchObject({ heading: '## Task', items: 0 });
    expect(x.sections.map((s) => s.heading)).toEqual(expect.arrayContaining(['## About this user', '## Recent history']));
    const total = x.sections.reduce((sum, s) => sum + s.tokens, 0);
    // Counted apart, the parts can only cost the same or a little more than the whole.
    expect(total).toBeGreaterThanOrEqual(countTokens(x.bundle.assembled_context));
    expect(total).toBeLessThanOrEqual(countTokens(x.bundle.assembled_context) + x.sections.length);
    const items = x.sections.reduce((sum, s) => sum + s.items, 0);
    expect(items).toBe(x.candidates.filter((c) => c.included).length);
  });

  it('writes a receipt when asked, like /v1/context', async () => {
    const x = (await explain({ subject_id: 'kim', task: 'Reply about the quote', emit_receipt: true }).expect(200)).body as Explanation;
    expect(x.bundle.receipt_id).toEqual(expect.any(String));
    await request(t.http).get(`/v1/receipts/${x.bundle.receipt_id}`).set('X-Tenant-ID', 'acme').expect(200);
  });

  it('keeps tenants apart and validates like /v1/context', async () => {
    const other = (await explain({ subject_id: 'kim', task: 'anything' }, 'globex').expect(200)).body as Explanation;
    expect(other.candidates).toEqual([]);
    expect(other.bundle.provenance.fact_ids).toEqual([]);
    const missing = await request(t.http).post('/v1/context/explain').send({ subject_id: 'kim', task: 'x' }).expect(400);
    expect(missing.body.error.code).toBe('missing_tenant');
    const bad = await explain({ subject_id: 'kim', task: 'x', max_tokens: 0 }).expect(422);
    expect(bad.body.error.details[0].loc).toEqual(['body', 'max_tokens']);
  });
});

describe('POST /v1/context/explain with an API key', () => {
  it('is refused without the key, like every /v1 route', async () => {
    const t = await createTestApp({ SERVICE_API_KEY: 'explain-key' }, { reset: false });
    try {
      expect((await request(t.http).post('/v1/context/explain').send({ subject_id: 'kim', task: 'x' }).expect(401)).body.error.code).toBe('missing_api_key');
    } finally {
      await t.close();
    }
  });
});
