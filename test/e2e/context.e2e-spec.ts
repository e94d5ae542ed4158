import { createHash } from 'node:crypto';
import request from 'supertest';
import { countTokens } from 'src/common/text/tokenizer';
import { ContextRepository } from 'src/modules/context/context.repository';
import { createTestApp, TestApp } from '../app-factory';

interface Bundle {
  subject_id: string;
  task: string;
  facts: { id: string; kind: string; content: string; source_episode_ids: string[] }[];
  episodes: { id: string; session_id: string | null; payload: Record<string, unknown> }[];
  procedures: { id: string; kind: string; content: string }[];
  provenance: { fact_ids: string[]; summary_ids: string[]; procedure_ids: string[]; episode_ids: string[] };
  assembled_context: string;
  token_estimate: number;
  sessions: { session_id: string; episode_count: number; first_at: string; last_at: string }[];
}

const sessionIds = (b: Bundle) => b.sessions.map((s) => s.session_id);

const turn = (subject_id: string, content: string, over: Record<string, unknown> = {}) => ({
  subject_id,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content }] },
  ...over,
});

async function ingest(t: TestApp, items: Record<string, unknown>[], tenant?: string): Promise<string[]> {
  const req = request(t.http).post('/v1/episodes/batch');
  if (tenant) req.set('X-Tenant-ID', tenant);
  const res = await req.send({ episodes: items }).expect(201);
  return res.body.episodes.map((e: { id: string }) => e.id);
}

async function compile(t: TestApp, subject: string, tenant?: string): Promise<void> {
  const req = request(t.http).post('/v1/memories/compile');
  if (tenant) req.set('X-Tenant-ID', tenant);
  await req.send({ subject_id: subject }).expect(200);
}

async function context(t: TestApp, body: Record<string, unknown>, tenant?: string): Promise<Bundle> {
  const req = request(t.http).post('/v1/context');
  if (tenant) req.set('X-Tenant-ID', tenant);
  const res = await req.send(body).expect(200);
  return res.body as Bundle;
}

/** A memory written straight into the table, for states the compiler does not produce on demand. */
async function insertMemory(t: TestApp, m: { subject: string; kind: string; content: string; valid_to?: Date | null; tenant?: string | null; created_at?: Date }): Promise<string> {
  const [row] = await t.ds.query(
    `INSERT INTO memories (tenant_id, subject_id, kind, content, valid_from, valid_to, created_at, updated_at, source_episode_ids)
     VALUES ($1, $2, $3, $4, $5, $6, $5, $5, '{}') RETURNING id`,
    [m.tenant ?? null, m.subject, m.kind, m.content, m.created_at ?? new Date(), m.valid_to ?? null],
  );
  return row.id;
}

/** Ids of what each memory or episode candidate fetch returned, recorded until `restore` (the real fetch runs). */
function recordFetches(t: TestApp, fetch: 'memoryCandidates' | 'episodeCandidates'): { fetched: string[][]; restore: () => void } {
  const repo = t.app.get(ContextRepository);
  const fetched: string[][] = [];
  const original = repo[fetch].bind(repo) as (...args: unknown[]) => Promise<{ id: string }[]>;
  const spy = jest.spyOn(repo, fetch).mockImplementation((async (...args: unknown[]) => {
    const found = await original(...args);
    fetched.push(found.map((row) => row.id));
    return found;
  }) as never);
  return { fetched, restore: () => spy.mockRestore() };
}

/**
 * `count` summaries `user: <phrase> <i>` written by one statement (one created_at; `valid_from`
 * i minutes ago), every one an equal text match for the phrase's words. Answers their ids in the
 * order the fetch breaks ties among equal matches (MEMORY_TEXT_TIES: content hash) and the ids of
 * the `n` newest by `valid_from` (MEMORY_TIES).
 */
async function insertEqualMatches(t: TestApp, subject: string, phrase: string, count: number): Promise<{ byHash: string[]; newest: (n: number) => string[] }> {
  await t.ds.query(
    `INSERT INTO memories (subject_id, kind, content, valid_from, created_at, updated_at, source_episode_ids)
     SELECT $1, 'episode_summary', 'user: ' || $2 || ' ' || i, now() - make_interval(mins => i), now(), now(), '{}'
     FROM generate_series(1, $3::int) AS i`,
    [subject, phrase, count],
  );
  const rows: { id: string; content: string }[] = await t.ds.query(`SELECT id, content FROM memories WHERE subject_id = $1`, [subject]);
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  const byHash = [...rows].sort((a, b) => (md5(a.content) < md5(b.content) ? -1 : 1)).map((r) => r.id);
  const idOf = new Map(rows.map((r) => [r.content, r.id]));
  return { byHash, newest: (n) => Array.from({ length: n }, (_, k) => idOf.get(`user: ${phrase} ${k + 1}`)!) };
}

const HEADINGS = ['## Task', '## About this user', '## Procedures', '## Recent history', '## Recent interactions'];

describe('POST /v1/context', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await ingest(t, [
      turn('juno', 'My name is Juno Marsh and I work at Acme.', { session_id: 's1' }),
      turn('juno', 'My router keeps dropping the wifi connection every evening.', { session_id: 's1' }),
      turn('juno', 'I am on the Pro plan.', { session_id: 's2' }),
    ]);
    await compile(t, 'juno');
    await insertMemory(t, { subject: 'juno', kind: 'procedure', content: 'To fix wifi drops: restart the router, then update its firmware.' });
    // Ingested after the compile: stays a raw episode.
    await ingest(t, [turn('juno', 'The wifi dropped again during my video call today.', { session_id: 's2' })]);
  });
  afterAll(() => t.close());

  it('answers each memory and episode exactly as the timeline does (metadata, payload and provenance parsed)', async () => {
    await ingest(t, [
      turn('wire', 'My name is Ines and I work at Globex.', { session_id: 'w1', metadata: { channel: 'chat' } }),
      turn('wire', 'My wifi router is a Fritzbox 7590.', { session_id: 'w1', metadata: { channel: 'chat', tags: ['wifi'] }, provenance: { ticket: 'T-9', hops: [1, 2] } }),
    ]);
    await compile(t, 'wire');
    await ingest(t, [turn('wire', 'The Fritzbox wifi dropped again tonight.', { session_id: 'w2', provenance: { ticket: 'T-10' } })]);
    const b = (await request(t.http).post('/v1/context').send({ subject_id: 'wire', task: 'Which wifi router does Ines have at Globex?' }).expect(200)).body;
    const timeline = (await request(t.http).get('/v1/timeline?subject_id=wire').expect(200)).body as { episodes: { id: string }[]; memories: { id: string }[] };
    const byId = new Map([...timeline.episodes, ...timeline.memories].map((x) => [x.id, x]));
    const items = [...b.facts, ...b.procedures, ...b.episodes] as { id: string }[];
    expect(b.facts.length).toBeGreaterThan(0);
    expect(b.episodes.length).toBeGreaterThan(0);
    for (const item of items) expect(item).toEqual(byId.get(item.id));
    expect(b.episodes).toContainEqual(expect.objectContaining({ provenance: { ticket: 'T-10' } }));
    expect(b.facts.some((m: { metadata: unknown }) => typeof m.metadata === 'object' && m.metadata !== null && Object.keys(m.metadata).length > 0)).toBe(true);
  });

  it('returns the bundle shape with provenance arrays matching the listed items', async () => {
    const b = await context(t, { subject_id: 'juno', task: 'Help Juno with the wifi router problem' });
    expect(Object.keys(b).sort()).toEqual(['assembled_context', 'episodes', 'facts', 'procedures', 'provenance', 'receipt_emitted', 'receipt_id', 'sessions', 'subject_id', 'task', 'token_estimate']);
    expect(b.subject_id).toBe('juno');
    expect(b.task).toBe('Help Juno with the wifi router problem');
    const facts = b.facts.filter((m) => m.kind === 'profile_fact').map((m) => m.id);
    const summaries = b.facts.filter((m) => m.kind === 'episode_summary').map((m) => m.id);
    expect(b.provenance).toEqual({ fact_ids: facts, summary_ids: summaries, procedure_ids: b.procedures.map((m) => m.id), episode_ids: b.episodes.map((e) => e.id) });
    expect(facts.length).toBeGreaterThan(0);
    expect(summaries.length).toBeGreaterThan(0);
    expect(b.procedures.map((m) => m.content)).toEqual(['To fix wifi drops: restart the router, then update its firmware.']);
    expect(b.episodes.map((e) => (e.payload.messages as { content: string }[])[0].content)).toContain('The wifi dropped again during my video call today.');
    expect(sessionIds(b)).toEqual(['s1', 's2']);
    expect(b.token_estimate).toBe(countTokens(b.assembled_context));
    for (const m of [...b.facts, ...b.procedures]) expect(b.assembled_context).toContain(m.content.replace(/\s+/g, ' ').slice(0, 30));
  });

  it('does not spend the budget twice on a summary and the episode it summarises', async () => {
    const b = await context(t, { subject_id: 'juno', task: 'router wifi dropping every evening' });
    const summarised = new Set(b.facts.flatMap((m) => (m.kind === 'episode_summary' ? m.source_episode_ids : [])));
    for (const id of b.provenance.episode_ids) expect(summarised.has(id)).toBe(false);
    expect(b.assembled_context.split('keeps dropping the wifi').length - 1).toBe(1);
  });

  it('renders the sections in contract order under the compat headings', async () => {
    const b = await context(t, { subject_id: 'juno', task: 'wifi router Juno plan' });
    const at = HEADINGS.map((h) => b.assembled_context.indexOf(`${h}\n`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    expect(b.assembled_context.startsWith('## Task\nwifi router Juno plan\n')).toBe(true);
  });

  it('never exceeds the budget, whatever the budget or task length', async () => {
    const long = `wifi router ${'please help me with my connection problem '.repeat(100)}`.slice(0, 4000);
    for (const task of ['wifi router', long]) {
      for (const max_tokens of [1, 50, 4000]) {
        const b = await context(t, { subject_id: 'juno', task, max_tokens });
        expect(b.token_estimate).toBeLessThanOrEqual(max_tokens);
        expect(countTokens(b.assembled_context)).toBe(b.token_estimate);
      }
    }
    const dflt = await context(t, { subject_id: 'juno', task: long });
    expect(dflt.token_estimate).toBeLessThanOrEqual(t.config.defaultMaxContextTokens);
    expect(dflt.facts.length + dflt.episodes.length).toBeGreaterThan(0);
  });

  it('renders the requested session under its own heading and ranks its items higher', async () => {
    const ids = await ingest(t, [
      turn('sess', 'We talked about the invoice for March.', { session_id: 'old' }),
      turn('sess', 'The invoice for March is wrong.', { session_id: 'old' }),
      turn('sess', 'Also the invoice for April looks odd.', { session_id: 'live' }),
    ]);
    const plain = await context(t, { subject_id: 'sess', task: 'invoice', max_tokens: 60 });
    const live = await context(t, { subject_id: 'sess', task: 'invoice', max_tokens: 60, session_id: 'live' });
    expect(live.assembled_context).toContain('\n## Recent interactions\n\n### Current session (live)\n');
    expect(live.provenance.episode_ids).toContain(ids[2]);
    expect(live.assembled_context.indexOf('### Current session (live)')).toBeLessThan(live.assembled_context.indexOf('April'));
    expect(plain.assembled_context).not.toContain('### Current session');
    // Without the session the budget goes to the best text match instead.
    expect(plain.provenance.episode_ids).not.toContain(ids[2]);
    const roomy = await context(t, { subject_id: 'sess', task: 'invoice', session_id: 'live' });
    expect(roomy.provenance.episode_ids).toEqual(expect.arrayContaining(ids));
    expect(sessionIds(roomy)).toEqual(['live', 'old']);
  });

  it('describes each session of the included episodes as an object with its episode count and first and last times', async () => {
    const ids = await ingest(t, [
      turn('sess-objects', 'The API returns 502 on bulk upload.', { session_id: 'api-1' }),
      turn('sess-objects', 'Bulk upload of 10k rows still returns 502.', { session_id: 'api-1' }),
      turn('sess-objects', 'Please send the invoice to finance@example.com.', { session_id: 'billing-1' }),
    ]);
    const [created] = await t.ds.query(`SELECT to_json(min(created_at)) AS first, to_json(max(created_at)) AS last FROM episodes WHERE id = ANY($1::uuid[])`, [ids.slice(0, 2)]);
    const b = await context(t, { subject_id: 'sess-objects', task: 'bulk upload 502 and the invoice' });
    expect(b.provenance.episode_ids.sort()).toEqual([...ids].sort());
    expect(b.sessions).toEqual([
      { session_id: 'api-1', episode_count: 2, first_at: expect.any(String), last_at: expect.any(String) },
      { session_id: 'billing-1', episode_count: 1, first_at: expect.any(String), last_at: expect.any(String) },
    ]);
    expect(Date.parse(b.sessions[0].first_at)).toBe(Date.parse(created.first));
    expect(Date.parse(b.sessions[0].last_at)).toBe(Date.parse(created.last));
  });

  it('ranks an expired memory below a valid one', async () => {
    const day = 24 * 3600 * 1000;
    const expired = await insertMemory(t, { subject: 'exp', kind: 'profile_fact', content: 'Preferred contact channel is phone.', valid_to: new Date(Date.now() - day), created_at: new Date(Date.now() - 2 * day) });
    const valid = await insertMemory(t, { subject: 'exp', kind: 'profile_fact', content: 'Preferred contact channel is email.', created_at: new Date(Date.now() - 3 * day) });
    const b = await context(t, { subject_id: 'exp', task: 'Which contact channel is preferred?' });
    expect(b.provenance.fact_ids[0]).toBe(valid);
    const pos = b.provenance.fact_ids.indexOf(expired);
    if (pos >= 0) expect(pos).toBeGreaterThan(0);
  });

  it('gives the customer’s compiled facts a standing share, and a named speaker’s facts none', async () => {
    // The same conversation twice: once with the customer's generic role, once between named people.
    type Explained = { kind: string; text: string | null; included: boolean; pack_order: number | null };
    const explain = async (role: string): Promise<Explained[]> => {
      const subject = `standing-${role}-${Date.now()}`;
      const said = (content: string) => turn(subject, content, { payload: { messages: [{ role, content }] } });
      await ingest(t, [
        said('I love camping trips with my family.'),
        ...Array.from({ length: 12 }, (_, i) => said(`Invoice 7731 was charged twice again, this time on day ${i + 1} of March.`)),
      ]);
      await compile(t, subject);
      const res = await request(t.http).post('/v1/context/explain').send({ subject_id: subject, task: 'Why was invoice 7731 charged twice?', max_tokens: 200 }).expect(200);
      return res.body.candidates as Explained[];
    };
    const factOrder = (cs: Explained[]) => cs.find((c) => c.kind === 'profile_fact' && c.text!.includes('camping'))!.pack_order!;
    const invoiceOrders = (cs: Explained[]) => cs.filter((c) => c.included && c.text!.includes('7731')).map((c) => c.pack_order!);

    // The customer's fact is packed first, within its standing share, whatever the task's words.
    const customer = await explain('user');
    expect(factOrder(customer)).toBe(0);
    // Caroline's fact shares no word with the task: it comes after every invoice turn.
    const caroline = await explain('Caroline');
    expect(invoiceOrders(caroline).length).toBeGreaterThan(3);
    expect(factOrder(caroline)).toBeGreaterThan(Math.max(...invoiceOrders(caroline)));
  });

  it('ranks a named person’s own turns above turns that only address them', async () => {
    const subject = `speakers-${Date.now()}`;
    const said = (role: string, content: string) => turn(subject, content, { payload: { messages: [{ role, content }] } });
    await ingest(t, [
      said('Joanna', 'Nate, look at my new addition to the family: a dog called Max!'),
      said('Nate', 'Look at my new addition to the family: a dog called Max!'),
      said('Joanna', 'The weather was lovely today.'),
    ]);
    await compile(t, subject);
    const res = await request(t.http).post('/v1/context/explain').send({ subject_id: subject, task: 'What new addition to the family does Nate have?', max_tokens: 400 }).expect(200);
    type Explained = { source: string; kind: string; text: string | null; components: { relevance: number } | null };
    const relevance = (source: string, speaker: string) =>
      (res.body.candidates as Explained[]).find((c) => c.source === source && c.text!.includes('Max') && c.text!.startsWith(speaker))!.components!.relevance;
    // Joanna's turn even names Nate; his own is the one about him (the episode and its summary alike).
    expect(relevance('episode', 'Nate')).toBeGreaterThan(relevance('episode', 'Joanna') + 1);
    expect(relevance('memory', 'Nate')).toBeGreaterThan(relevance('memory', 'Joanna') + 1);
  });

  it('answers identical requests with identical bundles', async () => {
    const body = { subject_id: 'juno', task: 'What is Juno working on and which plan?', max_tokens: 300, session_id: 's2' };
    const a = await context(t, body);
    const b = await context(t, body);
    expect(b).toEqual(a);
  });

  it('answers an unknown subject with empty lists and only the task section', async () => {
    const b = await context(t, { subject_id: 'nobody', task: 'anything at all' });
    expect(b).toEqual({
      subject_id: 'nobody',
      task: 'anything at all',
      receipt_id: null,
      receipt_emitted: false,
      facts: [],
      episodes: [],
      procedures: [],
      provenance: { fact_ids: [], summary_ids: [], procedure_ids: [], episode_ids: [] },
      assembled_context: '## Task\nanything at all\n',
      token_estimate: countTokens('## Task\nanything at all\n'),
      sessions: [],
    });
  });

  it('rejects bad input with 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ subject_id: 'juno', task: '' }, 'task'],
      [{ subject_id: 'juno', task: 'x'.repeat(4001) }, 'task'],
      [{ subject_id: 'juno' }, 'task'],
      [{ subject_id: 'juno', task: 'x', max_tokens: 0 }, 'max_tokens'],
      [{ subject_id: 'juno', task: 'x', max_tokens: 128001 }, 'max_tokens'],
      [{ subject_id: 'juno', task: 'x', max_tokens: 1.5 }, 'max_tokens'],
      [{ subject_id: 'juno', task: 'x', max_tokens: 'x' }, 'max_tokens'],
      [{ subject_id: '', task: 'x' }, 'subject_id'],
      [{ subject_id: 's'.repeat(257), task: 'x' }, 'subject_id'],
      [{ task: 'x' }, 'subject_id'],
      [{ subject_id: 'juno', task: 'x', session_id: '' }, 'session_id'],
      [{ subject_id: 'juno', task: 'x', session_id: 's'.repeat(257) }, 'session_id'],
    ];
    for (const [body, field] of cases) {
      const res = await request(t.http).post('/v1/context').send(body).expect(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d: { loc: string[] }) => d.loc)).toContainEqual(['body', field]);
    }
    await request(t.http).post('/v1/context').send({ subject_id: 'juno', task: 'x'.repeat(4000), max_tokens: 128000 }).expect(200);
  });

  it('finds the relevant memory among 3,000 without fetching the whole subject', async () => {
    await t.ds.query(
      `INSERT INTO memories (subject_id, kind, content, valid_from, created_at, updated_at, source_episode_ids)
       SELECT 'big', CASE WHEN i % 10 = 0 THEN 'profile_fact' ELSE 'episode_summary' END,
              'user: note ' || i || ' about the weather, lunch plans and weekend errands',
              now() - make_interval(mins => i), now() - make_interval(mins => i), now(), '{}'
       FROM generate_series(1, 3000) AS i`,
    );
    const needle = await insertMemory(t, { subject: 'big', kind: 'episode_summary', content: 'user: my passport number changed after the renewal', created_at: new Date(Date.now() - 4000 * 60000) });
    const { fetched, restore } = recordFetches(t, 'memoryCandidates');
    try {
      const b = await context(t, { subject_id: 'big', task: 'What happened with the passport renewal?', max_tokens: 500 });
      expect(b.provenance.summary_ids).toContain(needle);
      expect(b.token_estimate).toBeLessThanOrEqual(500);
      expect(fetched).toHaveLength(1);
      // 100 text hits + 30 newest + 30 facts and procedures + 50 nearest by embedding, at most.
      expect(fetched[0].length).toBeLessThanOrEqual(210);
      const common = await context(t, { subject_id: 'big', task: 'weather lunch weekend errands note', max_tokens: 500 });
      expect(common.facts.length).toBeGreaterThan(0);
      expect(fetched[1].length).toBeLessThanOrEqual(210);
    } finally {
      restore();
    }
  });

  it('breaks ties in the memory fetch by content and time, never by random ids', async () => {
    // 150 equal text matches written by one statement: which cross the 100 text hits and the 30
    // newest must follow from the data alone.
    const { byHash, newest } = await insertEqualMatches(t, 'ties', 'tide chart entry', 150);
    const expected = new Set([...byHash.slice(0, 100), ...newest(30)]);

    const { fetched, restore } = recordFetches(t, 'memoryCandidates');
    try {
      await context(t, { subject_id: 'ties', task: 'Where is the tide?', max_tokens: 500 });
    } finally {
      restore();
    }
    expect(new Set(fetched[0])).toEqual(expected);
  });

  it('deepens the memory text fetch with the budget (one hit per 5 tokens up to 1,000, one per 20 beyond, at least 100), bounded at 1,000 hits', async () => {
    // 1,200 equal text matches: the text branch takes the first N by content hash, the newest
    // branch one item per 40 tokens of budget (at least 30, at most 400).
    const { byHash, newest } = await insertEqualMatches(t, 'deep', 'harbour log line', 1200);

    const { fetched, restore } = recordFetches(t, 'memoryCandidates');
    try {
      for (const max_tokens of [500, 1000, 2000, 4000, 20000]) {
        const b = await context(t, { subject_id: 'deep', task: 'Which harbour log?', max_tokens });
        expect(b.token_estimate).toBeLessThanOrEqual(max_tokens);
      }
    } finally {
      restore();
    }
    // 500 tokens: 100 hits (the least) and the 30 newest.
    expect(new Set(fetched[0])).toEqual(new Set([...byHash.slice(0, 100), ...newest(30)]));
    // 1,000 tokens: 200 hits and the 30 newest.
    expect(new Set(fetched[1])).toEqual(new Set([...byHash.slice(0, 200), ...newest(30)]));
    // 2,000 tokens: 250 hits and the 50 newest.
    expect(new Set(fetched[2])).toEqual(new Set([...byHash.slice(0, 250), ...newest(50)]));
    // 4,000 tokens: 350 hits and the 100 newest.
    expect(new Set(fetched[3])).toEqual(new Set([...byHash.slice(0, 350), ...newest(100)]));
    // 20,000 tokens: 1,000 hits at most (not 1,200), and the 400 newest (the most).
    expect(new Set(fetched[4])).toEqual(new Set([...byHash.slice(0, 1000), ...newest(400)]));
  });

  it('reads 100 episode text hits at every budget: only the memory hits deepen with it', async () => {
    // 300 older episodes that match the task, then 60 newer ones that do not, none compiled (no
    // memory competes) and without sessions (no neighbours): the fetch holds the text hits (the
    // newest matches first among equals) and the newest items (one per 40 tokens, at least 30).
    const matching: string[] = [];
    for (let b = 0; b < 3; b++) {
      matching.push(...(await ingest(t, Array.from({ length: 100 }, (_, i) => turn('shallow', `anchor chain note ${b * 100 + i}`)))));
    }
    await ingest(t, Array.from({ length: 60 }, (_, i) => turn('shallow', `calm weather today ${i}`)));
    const matches = new Set(matching);

    const { fetched, restore } = recordFetches(t, 'episodeCandidates');
    try {
      for (const max_tokens of [1000, 2000, 4000]) {
        const b = await context(t, { subject_id: 'shallow', task: 'Which anchor chain?', max_tokens });
        expect(b.token_estimate).toBeLessThanOrEqual(max_tokens);
      }
    } finally {
      restore();
    }
    const hits = fetched.map((ids) => ids.filter((id) => matches.has(id)));
    expect(hits.map((ids) => ids.length)).toEqual([100, 100, 100]);
    // The newest hundred matches, at each budget.
    for (const ids of hits) expect(new Set(ids)).toEqual(new Set(matching.slice(200)));
    // Beside them the 30 / 50 / 100 newest items: at 4,000 tokens those are the 60 that do not
    // match and 40 of the hits already counted.
    expect(fetched.map((ids) => ids.length)).toEqual([130, 150, 160]);
  });

  it('reads two turns on each side of a best hit, and ranks the speaker’s own turn across a reply with it', async () => {
    // One session of nine alternating turns in which only the middle one matches the task, then
    // 60 newer unrelated episodes elsewhere so that the newest-items branch (30) cannot reach it.
    const speakers = ['Melanie', 'Caroline'];
    const lines = [
      'Morning! How was your week?',
      'Busy, the garden took all of Saturday.',
      'Sounds tiring. Anything fun?',
      'Not much, mostly weeding.',
      'We finally went on our camping trip by the lake.',
      'Oh nice, how did the kids like it?',
      'They loved the campfire and the stars, we stayed up until midnight.',
      'That sounds lovely.',
      'Anyway, I should get going.',
    ];
    const session = await ingest(
      t,
      lines.map((content, i) => ({ ...turn('dialogue', content), session_id: 'weekend', payload: { messages: [{ role: speakers[i % 2], content }] } })),
    );
    await ingest(t, Array.from({ length: 60 }, (_, i) => ({ ...turn('dialogue', `unrelated errand ${i}`), session_id: 'errands' })));

    const body = { subject_id: 'dialogue', task: 'Where was the camping trip?', max_tokens: 1000 };
    const { fetched, restore } = recordFetches(t, 'episodeCandidates');
    try {
      await context(t, body);
    } finally {
      restore();
    }
    // The hit (turn 5), the two turns before and after it; turns 1, 2, 8 and 9 stay unread.
    expect(fetched[0].filter((id) => session.includes(id)).sort()).toEqual(session.slice(2, 7).sort());

    // Melanie's next turn (7) answers the question without its task word: it inherits a share of
    // her hit's relevance across Caroline's reply, as the adjacent replies (4, 6) do, and so does
    // her turn before it (3); the unrelated errands get none.
    const res = await request(t.http).post('/v1/context/explain').send(body).expect(200);
    const relevance = new Map((res.body.candidates as { id: string; components: { relevance: number } | null }[]).map((c) => [c.id, c.components?.relevance ?? 0]));
    const [melanieBefore, replyBefore, hit, replyAfter, melanieAfter] = [2, 3, 4, 5, 6].map((i) => relevance.get(session[i])!);
    expect(hit).toBe(5);
    expect(replyBefore).toBeGreaterThan(1);
    expect(melanieBefore).toBe(replyBefore);
    expect(replyAfter).toBe(replyBefore);
    // Turn 7 also matches "camping" by a word vector of its own ("campfire"), on top of the share.
    expect(melanieAfter).toBeGreaterThan(replyBefore);
    const errands = [...relevance].filter(([id]) => !session.includes(id));
    expect(errands.length).toBeGreaterThan(0);
    for (const [, r] of errands) expect(r).toBe(0);
  });

  it('fetches a turn that holds only a variant of a task word the stemmer split off, and scores it as that word', async () => {
    // "allergies" stems to allergi, "allergic" to allerg: the turn that answers shares no stem
    // with the task, and 60 newer errands keep it out of the newest-items branch.
    const turns = await ingest(t, [
      { ...turn('variants', 'My allergies were bad this spring.'), session_id: 'health' },
      { ...turn('variants', 'I am allergic to most animals with fur, so no cat for me.'), session_id: 'pets' },
    ]);
    await ingest(t, Array.from({ length: 60 }, (_, i) => ({ ...turn('variants', `unrelated errand ${i}`), session_id: 'errands' })));

    const body = { subject_id: 'variants', task: 'Which pets would suit her, given her allergies?', max_tokens: 1000 };
    const { fetched, restore } = recordFetches(t, 'episodeCandidates');
    try {
      await context(t, body);
    } finally {
      restore();
    }
    expect(fetched[0]).toEqual(expect.arrayContaining(turns));

    // The variant counts at its word vector's cosine to the task word: well above what a mere
    // neighbour word is given (a quarter of its cosine), and the bundle holds the turn.
    const res = await request(t.http).post('/v1/context/explain').send(body).expect(200);
    const candidates = res.body.candidates as { id: string; included: boolean; components: { relevance: number } | null }[];
    const variant = candidates.find((c) => c.id === turns[1])!;
    expect(variant.components!.relevance).toBeGreaterThan(2);
    expect(variant.included).toBe(true);
  });
});

describe('POST /v1/context under tenant isolation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it('assembles only the requesting tenant’s data; NULL-tenant legacy rows never appear', async () => {
    await ingest(t, [turn('shared', 'Tenant A secret: the vault code is alpha.')], 'A');
    await ingest(t, [turn('shared', 'Tenant B secret: the vault code is bravo.')], 'B');
    await compile(t, 'shared', 'A');
    await compile(t, 'shared', 'B');
    await t.ds.query(
      `INSERT INTO episodes (subject_id, source, type, payload, content_text) VALUES ('shared', 'user', 'conversation', '{}', 'Legacy secret: the vault code is charlie.')`,
    );
    await insertMemory(t, { subject: 'shared', kind: 'profile_fact', content: 'Legacy vault code is charlie.' });

    const a = await context(t, { subject_id: 'shared', task: 'What is the vault code?' }, 'A');
    expect(a.assembled_context).toContain('alpha');
    expect(a.assembled_context).not.toMatch(/bravo|charlie/);
    const b = await context(t, { subject_id: 'shared', task: 'What is the vault code?' }, 'B');
    expect(b.assembled_context).toContain('bravo');
    expect(b.assembled_context).not.toMatch(/alpha|charlie/);
    const none = await context(t, { subject_id: 'shared', task: 'What is the vault code?' }, 'C');
    expect(none.assembled_context).toBe('## Task\nWhat is the vault code?\n');
    await request(t.http).post('/v1/context').send({ subject_id: 'shared', task: 'x' }).expect(400);
  });
});
