/**
 * What a context bundle must hold beyond the best text matches (compat.md, "Context fills its
 * budget"): a large budget is used, the customer's stated preferences and earlier ticket ids
 * reach a support agent whatever the task's wording, and every section appears in order.
 * Our own scenarios for the situations of issue 17, items 5, 6 and 9.
 */
import request from 'supertest';
import { countTokens } from 'src/common/text/tokenizer';
import { createTestApp, TestApp } from '../app-factory';

interface Bundle {
  facts: { id: string; kind: string; content: string; source_episode_ids: string[] }[];
  episodes: { id: string }[];
  procedures: { id: string; content: string }[];
  provenance: { fact_ids: string[]; summary_ids: string[]; procedure_ids: string[]; episode_ids: string[] };
  assembled_context: string;
  token_estimate: number;
}

type Role = 'user' | 'assistant';

const say = (subject_id: string, session_id: string, role: Role, content: string) => ({
  subject_id,
  session_id,
  source: role === 'user' ? 'support-chat' : 'agent',
  type: 'conversation',
  payload: { messages: [{ role, content }] },
});

async function ingest(t: TestApp, items: Record<string, unknown>[]): Promise<string[]> {
  const res = await request(t.http).post('/v1/episodes/batch').send({ episodes: items }).expect(201);
  return res.body.episodes.map((e: { id: string }) => e.id);
}

async function compile(t: TestApp, subject: string): Promise<void> {
  await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
}

async function context(t: TestApp, body: Record<string, unknown>): Promise<Bundle> {
  const res = await request(t.http).post('/v1/context').send(body).expect(200);
  const b = res.body as Bundle;
  expect(b.token_estimate).toBe(countTokens(b.assembled_context));
  if (typeof body.max_tokens === 'number') expect(b.token_estimate).toBeLessThanOrEqual(body.max_tokens);
  return b;
}

/** Episodes the bundle carries, raw or through a memory compiled from them. */
function coveredEpisodes(b: Bundle): Set<string> {
  return new Set([...b.provenance.episode_ids, ...b.facts.flatMap((m) => m.source_episode_ids)]);
}

describe('POST /v1/context uses the budget it is given', () => {
  let t: TestApp;
  let compiled: string[];
  let notes: string[];
  beforeAll(async () => {
    t = await createTestApp();
    const visits = Array.from({ length: 12 }, (_, i) =>
      say('rover', `trip-${i}`, 'user', `My name is Rowan Vale${i}. I live in Porthaven${i}. Visit ${i} covered ferries, orchards, brass bands and spreadsheets, voucher V-${100 + i}.`),
    );
    compiled = await ingest(t, visits);
    await compile(t, 'rover');
    notes = await ingest(
      t,
      Array.from({ length: 5 }, (_, i) => say('rover', 'notes', 'user', `Loose note ${i}: the parcel to dock ${i} needs a signature on delivery.`)),
    );
  });
  afterAll(() => t.close());

  it('fills a large budget with every item, uncompiled episodes included, for a generic task', async () => {
    const small = await context(t, { subject_id: 'rover', task: 'summarize', max_tokens: 120 });
    const large = await context(t, { subject_id: 'rover', task: 'summarize', max_tokens: 8000 });
    const covered = coveredEpisodes(large);
    for (const id of [...compiled, ...notes]) expect(covered.has(id)).toBe(true);
    expect(large.provenance.episode_ids).toEqual(expect.arrayContaining(notes));
    expect(large.token_estimate).toBeGreaterThan(4 * small.token_estimate);
    for (let i = 0; i < 12; i++) expect(large.assembled_context).toContain(`V-${100 + i}`);
  });

  it('orders by relevance without excluding the rest when the budget has room', async () => {
    const b = await context(t, { subject_id: 'rover', task: 'Which voucher came with visit 7?', max_tokens: 8000 });
    const covered = coveredEpisodes(b);
    for (const id of [...compiled, ...notes]) expect(covered.has(id)).toBe(true);
    // Still ranked: a tight budget keeps the matching visit.
    const tight = await context(t, { subject_id: 'rover', task: 'Which voucher came with visit 7?', max_tokens: 150 });
    expect(tight.assembled_context).toContain('V-107');
  });
});

describe('POST /v1/context brings a support agent the customer’s preferences and tickets', () => {
  let t: TestApp;
  const subject = 'cust-fernhill';
  beforeAll(async () => {
    t = await createTestApp();
    await ingest(t, [
      say(subject, 'onboarding', 'user', 'Hello, we signed up last week and are planning our rollout.'),
      say(subject, 'onboarding', 'assistant', 'Welcome aboard! Happy to help you plan the rollout.'),
      say(subject, 'onboarding', 'user', 'Our developers would rather integrate through the Python SDK than call the REST API directly.'),
      say(subject, 'onboarding', 'user', 'We also need webhook notifications so our dashboard updates the moment a report finishes.'),
      say(subject, 'onboarding', 'assistant', 'Noted, I will share the quickstart guide with your team.'),
    ]);
    const filler = [
      'The March invoice lists twelve seats but we only use nine of them.',
      'Could you check why the credit card on file was charged twice this month?',
      'Our finance team needs the invoices addressed to the Leeds office from now on.',
      'The VAT number on the last two invoices is missing a digit.',
      'Can we move from monthly to annual billing before the renewal date?',
      'Please resend the February receipt, the first copy never arrived in our mailbox.',
    ];
    const billing: Record<string, unknown>[] = [];
    for (const line of filler) {
      billing.push(say(subject, 'billing', 'user', line));
      billing.push(say(subject, 'billing', 'assistant', `Thanks for flagging this, I have passed it to our accounts team for review: ${line.toLowerCase()}`));
    }
    await ingest(t, billing);
    await ingest(t, [
      say(subject, 'sso', 'user', 'Since this morning nobody can sign in with SSO, Okta shows a SAML assertion error.'),
      say(subject, 'sso', 'assistant', 'I am sorry about that. I have escalated it to engineering as ticket OPS-7734 and will keep you posted.'),
      say(subject, 'sso', 'user', 'Thank you, please hurry, the whole sales floor is locked out.'),
    ]);
    await request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: 'sso', status: 'open' }).expect((r) => expect(r.status).toBeLessThan(300));
    await request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: 'billing', status: 'resolved', resolution_summary: 'Refunded the double charge.' }).expect((r) => expect(r.status).toBeLessThan(300));
    await compile(t, subject);
  });
  afterAll(() => t.close());

  it('includes the integration preferences for an integration task at the default budget', async () => {
    const b = await context(t, { subject_id: subject, task: 'Recommend how this account should connect their systems to ours' });
    expect(b.assembled_context).toContain('Python SDK');
    expect(b.assembled_context).toContain('webhook');
  });

  it('includes the preferences for a support task at 800 tokens whose words they do not share', async () => {
    const b = await context(t, { subject_id: subject, task: 'Draft a friendly reply to this customer about their latest message', max_tokens: 800 });
    expect(b.assembled_context).toContain('Python SDK');
    expect(b.assembled_context).toContain('webhook');
  });

  it('brings the ticket id the agent gave earlier when asked for an update', async () => {
    for (const max_tokens of [300, 800, 4000]) {
      const b = await context(t, { subject_id: subject, task: 'Is there any progress on the single sign-on outage?', max_tokens });
      expect(b.assembled_context).toContain('OPS-7734');
    }
  });
});

describe('A customer history sent in one batch with the client’s dates', () => {
  let t: TestApp;
  const subject = 'cust-larkspur';
  let memories: { kind: string; content: string; metadata: { attribute?: string; value?: string } }[];
  const on = (date: string, session: string, role: Role, content: string) => {
    const item = say(subject, session, role, content);
    return { ...item, payload: { ...item.payload, date } };
  };
  beforeAll(async () => {
    t = await createTestApp();
    const billing: Record<string, unknown>[] = [];
    for (const line of ['Can the renewal quote list each region separately?', 'Please add our cost centre code to the next invoice.', 'Is the education discount still available?']) {
      billing.push(on('2025-03-12', 'billing', 'user', line));
      billing.push(on('2025-03-12', 'billing', 'assistant', `Our finance desk will reply by email shortly: ${line.toLowerCase()}`));
    }
    // One batch, so every episode shares one created_at: only the client's dates order it.
    await ingest(t, [
      on('2025-03-03', 'kickoff', 'user', 'We run the warehouse systems at Larkspur Freight.'),
      on('2025-03-03', 'kickoff', 'user', 'Our platform team is going to integrate using the Kotlin client library.'),
      on('2025-03-03', 'kickoff', 'user', 'We would like a weekly email digest of failed syncs.'),
      on('2025-03-03', 'kickoff', 'assistant', 'Great, I will pass that on to your account manager.'),
      ...billing,
      on('2025-03-20', 'outage', 'user', 'Since the upgrade, label printing times out for every depot.'),
      on('2025-03-20', 'outage', 'assistant', 'I am sorry. I have raised this with engineering as LAB-8812 and will update you today.'),
    ]);
    const res = await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
    memories = res.body.memories;
  });
  afterAll(() => t.close());

  it('compiles the stated integration and notification preferences into profile facts', async () => {
    const facts = memories.filter((m) => m.kind === 'profile_fact').map((m) => `${m.metadata.attribute} = ${m.metadata.value}`);
    expect(facts).toEqual(expect.arrayContaining(['integration = Kotlin client library', 'notification = weekly email digest']));
    expect(facts.some((f) => /reply|finance desk/i.test(f))).toBe(false);
  });

  it('places items in time by the client’s ISO dates: the latest message is the most recent', async () => {
    const res = await request(t.http).post('/v1/context/explain').send({ subject_id: subject, task: 'label printing', max_tokens: 4000 }).expect(200);
    const candidates = res.body.candidates as { kind: string; text: string; components: { recency: number } | null }[];
    const recency = (fragment: string) => candidates.find((c) => c.kind === 'raw_episode' && c.text.includes(fragment))?.components?.recency;
    expect(recency('LAB-8812')).toBe(5);
    expect(recency('Larkspur Freight')).toBe(0);
    expect(recency('education discount')).toBeGreaterThan(0);
    expect(recency('education discount')).toBeLessThan(5);
  });

  it('brings the preferences and the open ticket to a reply task at 300 tokens', async () => {
    const b = await context(t, { subject_id: subject, task: "Draft a friendly reply to this customer's latest message", max_tokens: 300 });
    for (const expected of ['Kotlin client library', 'weekly email digest', 'LAB-8812']) expect(b.assembled_context).toContain(expected);
  });
});

describe('POST /v1/context with every kind of item present', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('renders Task, About this user, Procedures, Recent history and Recent interactions in order, each with its item', async () => {
    const subject = 'every-kind';
    const memories: [string, string][] = [
      ['profile_fact', 'I am on the Premium plan.'],
      ['procedure', 'To rotate an API key: open Settings, choose Keys, press Rotate.'],
      ['episode_summary', 'user: We walked through the layout of the quarterly report together.'],
    ];
    for (const [kind, content] of memories) {
      await t.ds.query(
        `INSERT INTO memories (subject_id, kind, content, valid_from, created_at, updated_at, source_episode_ids)
         VALUES ($1, $2, $3, now(), now(), now(), '{}')`,
        [subject, kind, content],
      );
    }
    await ingest(t, [{ subject_id: subject, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'Left a voicemail about the invoice address.' }] } }]);
    const b = await context(t, { subject_id: subject, task: 'xylophone zebra quantum', max_tokens: 4000 });
    const text = b.assembled_context;
    const sections = ['## Task', '## About this user', '## Procedures', '## Recent history', '## Recent interactions'];
    const at = sections.map((h) => text.indexOf(`${h}\n`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    const body = (k: number) => text.slice(at[k], k + 1 < at.length ? at[k + 1] : undefined);
    expect(body(0)).toContain('xylophone zebra quantum');
    expect(body(1)).toContain('Premium plan');
    expect(body(2)).toContain('rotate an API key');
    expect(body(3)).toContain('layout of the quarterly report');
    expect(body(4)).toContain('voicemail about the invoice address');
    expect(b.provenance.fact_ids).toHaveLength(1);
    expect(b.provenance.summary_ids).toHaveLength(1);
    expect(b.provenance.procedure_ids).toHaveLength(1);
    expect(b.provenance.episode_ids).toHaveLength(1);
  });
});
