import { WordVectors, wordVectors } from 'src/common/text/word-vectors';
import { ContextCandidate, dropDuplicates, KIND_PRIORITY, recordedAt, scoreCandidates, selectCandidates } from './ranking';

const NOW = new Date('2025-06-01T12:00:00Z');
const day = (n: number): Date => new Date(Date.UTC(2025, 4, n, 9, 0));

function candidate(id: string, overrides: Partial<ContextCandidate> = {}): ContextCandidate {
  return {
    id,
    label: 'raw_episode',
    text: `note ${id}`,
    created_at: day(1),
    valid_to: null,
    session_id: null,
    source_episode_ids: [],
    ...overrides,
  };
}

describe('recordedAt', () => {
  it.each([
    ['2026-01-14', '2026-01-14T00:00:00.000Z'],
    ['2026-01-14T09:30', '2026-01-14T09:30:00.000Z'],
    ['2026-01-14T09:30:15Z', '2026-01-14T09:30:15.000Z'],
    ['2026-01-14 09:30:15.250+02:00', '2026-01-14T07:30:15.250Z'],
    ['2026-01-14T09:30:15+0530', '2026-01-14T04:00:15.000Z'],
  ])('places the ISO date %s in time', (label, iso) => {
    expect(recordedAt(label)?.toISOString()).toBe(iso);
  });

  it.each(['1:56 pm on 8 May, 2023', 'yesterday', 'May 8', '2026-02-30', '2026-13-01', '14/01/2026', '', null, undefined])(
    'leaves the free-text or impossible label %p unplaced',
    (label) => {
      expect(recordedAt(label)).toBeNull();
    },
  );
});

describe('scoreCandidates: recency from the client date', () => {
  const batch = new Date('2026-11-01T12:00:00Z');
  const at = (id: string, date: string | null, seq: number): ContextCandidate =>
    candidate(id, { created_at: batch, seq, date_label: date, recorded_at: recordedAt(date) });

  it('spreads one batch over the dates the client gave, oldest 0 and newest 5', () => {
    const ranked = scoreCandidates('unrelated', [at('a', '2026-01-05', 1), at('b', '2026-01-08', 2), at('c', '2026-01-14', 3)], { now: NOW });
    const recency = new Map(ranked.map((c) => [c.id, c.signals.recency]));
    expect(recency.get('a')).toBe(0);
    expect(recency.get('b')).toBeCloseTo(5 / 3);
    expect(recency.get('c')).toBe(5);
    expect(ranked[0].id).toBe('c');
  });

  it('keeps created_at for labels that are not dates, so one batch stays all newest', () => {
    const ranked = scoreCandidates('unrelated', [at('a', '1:56 pm on 8 May, 2023', 1), at('b', '2:10 pm on 9 May, 2023', 2)], { now: NOW });
    expect(ranked.map((c) => c.signals.recency)).toEqual([5, 5]);
  });

  it('places a memory by its source episode date, beside episodes placed by theirs', () => {
    const fact = candidate('f', { label: 'profile_fact', text: 'We need Slack alerts.', created_at: batch, recorded_at: recordedAt('2026-01-05') });
    const ranked = scoreCandidates('unrelated', [fact, at('e', '2026-01-14', 9)], { now: NOW });
    expect(ranked.find((c) => c.id === 'f')?.signals.recency).toBe(0);
    expect(ranked.find((c) => c.id === 'e')?.signals.recency).toBe(5);
  });
});

describe('scoreCandidates', () => {
  it('sums the four signals within their contract ranges', () => {
    const ranked = scoreCandidates(
      'billing address',
      [
        candidate('f', { label: 'profile_fact', text: 'Billing address is 5 Elm Street', created_at: day(2) }),
        candidate('p', { label: 'procedure', text: 'Reset a password from the login page', created_at: day(1) }),
        candidate('s', { label: 'episode_summary', text: 'user: asked about the billing cycle', created_at: day(3) }),
        candidate('e', { label: 'raw_episode', text: 'unrelated chatter', created_at: day(5), valid_to: day(10) }),
      ],
      { now: NOW },
    );
    for (const c of ranked) {
      const { kind, recency, relevance, validity } = c.signals;
      expect(kind).toBe(KIND_PRIORITY[c.label]);
      expect(recency).toBeGreaterThanOrEqual(0);
      expect(recency).toBeLessThanOrEqual(5);
      expect(relevance).toBeGreaterThanOrEqual(0);
      expect(relevance).toBeLessThanOrEqual(5);
      expect([3, -4]).toContain(validity);
      expect(c.score).toBeCloseTo(kind + recency + relevance + validity);
    }
    // The summary's recency and partial match outweigh the procedure's higher kind priority.
    expect(ranked.map((c) => c.id)).toEqual(['f', 's', 'p', 'e']);
    const byId = new Map(ranked.map((c) => [c.id, c]));
    expect(byId.get('f')?.signals.relevance).toBe(5);
    expect(byId.get('e')?.signals).toMatchObject({ recency: 5, relevance: 0, validity: -4 });
    expect(byId.get('p')?.signals.recency).toBe(0);
    expect(byId.get('s')?.signals.recency).toBe(2.5);
  });

  it('gives every candidate full recency when all share one instant', () => {
    const ranked = scoreCandidates('x', [candidate('a'), candidate('b')], { now: NOW });
    expect(ranked.map((c) => c.signals.recency)).toEqual([5, 5]);
  });

  it('ranks an expired memory below an otherwise equal valid one, expiry at now included', () => {
    const ranked = scoreCandidates(
      'favourite colour',
      [
        candidate('expired', { label: 'profile_fact', text: 'Favourite colour is blue', valid_to: NOW }),
        candidate('valid', { label: 'profile_fact', text: 'Favourite colour is blue', valid_to: day(40) }),
      ],
      { now: NOW },
    );
    expect(ranked.map((c) => c.id)).toEqual(['valid', 'expired']);
    expect(ranked[0].score - ranked[1].score).toBe(7);
  });

  it('ranks items of the requested session above otherwise equal newer items', () => {
    const items = [
      candidate('old-in-session', { session_id: 's1', created_at: day(1) }),
      candidate('newer-elsewhere', { session_id: 's2', created_at: day(9) }),
      candidate('oldest-elsewhere', { session_id: 's2', created_at: day(0) }),
    ];
    const plain = scoreCandidates('hello', items, { now: NOW });
    expect(plain[0].id).toBe('newer-elsewhere');
    const ranked = scoreCandidates('hello', items, { now: NOW, sessionId: 's1' });
    expect(ranked.map((c) => [c.id, c.signals.recency])).toEqual([
      ['old-in-session', 5],
      ['newer-elsewhere', 4],
      ['oldest-elsewhere', 0],
    ]);
  });

  it('keeps the full 0–5 recency scale when the requested session has no items', () => {
    const ranked = scoreCandidates('x', [candidate('a', { created_at: day(2) }), candidate('b')], {
      now: NOW,
      sessionId: 'absent',
    });
    expect(ranked.map((c) => c.signals.recency)).toEqual([5, 0]);
  });

  it('uses the 0–8 semantic scale for items with a similarity', () => {
    const ranked = scoreCandidates(
      'refund',
      [
        candidate('sem', { text: 'money back for order', semantic_similarity: 0.9 }),
        candidate('lex', { text: 'refund issued' }),
        candidate('neg', { text: 'weather', semantic_similarity: -0.5 }),
      ],
      { now: NOW },
    );
    const byId = new Map(ranked.map((c) => [c.id, c.signals.relevance]));
    expect(byId.get('sem')).toBeCloseTo(8 * 0.75 * 0.9);
    expect(byId.get('lex')).toBe(5);
    expect(byId.get('neg')).toBe(0);
    expect(ranked[0].id).toBe('sem');
  });

  it('lets an episode inherit part of an adjacent turn’s match in the same session', () => {
    const turns = [
      candidate('q', { text: 'Where did you go camping last weekend?', session_id: 's', created_at: day(3) }),
      candidate('a', { text: 'To the lake, with the kids.', session_id: 's', created_at: day(4) }),
      candidate('other', { text: 'The kids loved the museum.', session_id: 't', created_at: day(4) }),
    ];
    const byId = new Map(scoreCandidates('camping trip', turns, { now: NOW }).map((c) => [c.id, c]));
    expect(byId.get('q')?.signals.relevance).toBe(5);
    expect(byId.get('a')?.signals.relevance).toBeCloseTo(5 * 0.4);
    expect(byId.get('other')?.signals.relevance).toBe(0);
  });

  it('lets a turn inherit from the same speaker’s turn across one reply, and only from that', () => {
    const turn = (id: string, speaker: string | null, text: string, hour: number): ContextCandidate =>
      candidate(id, { text, speakers: speaker === null ? null : [speaker], session_id: 's', created_at: new Date(Date.UTC(2025, 4, 3, hour)) });
    const session = (speakers: (string | null)[]) =>
      new Map(
        scoreCandidates(
          'camping trip',
          [
            turn('hit', speakers[0], 'We went on a camping trip by the lake.', 1),
            turn('reply', speakers[1], 'Sounds lovely!', 2),
            turn('more', speakers[2], 'The kids saw the meteor shower, unforgettable.', 3),
            turn('later', speakers[3], 'Anyway, how is work?', 4),
          ],
          { now: NOW },
        ).map((c) => [c.id, c.signals.relevance]),
      );

    // A, B, A: A's next turn continues what A said, across B's reply.
    const dialogue = session(['Melanie', 'Caroline', 'Melanie', 'Caroline']);
    expect(dialogue.get('hit')).toBe(5);
    expect(dialogue.get('reply')).toBeCloseTo(5 * 0.4);
    expect(dialogue.get('more')).toBeCloseTo(5 * 0.4);
    expect(dialogue.get('later')).toBe(0);
    // The support roles work alike: a customer's turn after the agent's reply.
    expect(session(['user', 'assistant', 'user', 'assistant']).get('more')).toBeCloseTo(5 * 0.4);

    // Two places away but another speaker's turn: not a continuation of the match.
    expect(session(['Melanie', 'Caroline', 'Jon', 'Caroline']).get('more')).toBe(0);
    // The same speaker twice in a row: the turn between is already the speaker's own, adjacent.
    expect(session(['Melanie', 'Melanie', 'Melanie', 'Caroline']).get('more')).toBe(0);
    // Without roles, only the adjacent turns inherit.
    expect(session([null, null, null, null]).get('more')).toBe(0);
  });

  it('matches the task’s words against the date an item is shown under, as a field of its own', () => {
    const items = [
      candidate('june', { text: 'Melanie: We went camping by the lake.', date_label: '2:01 pm on 27 June, 2023', session_id: 's1', created_at: day(1) }),
      candidate('july', { text: 'Melanie: We went camping in the forest.', date_label: '9:12 am on 14 July, 2023', session_id: 's2', created_at: day(2) }),
      candidate('fact', { label: 'profile_fact', text: 'Melanie: I love camping in June.' }),
    ];
    const byId = new Map(scoreCandidates('When did Melanie go camping in July?', items, { now: NOW }).map((c) => [c.id, c]));
    expect(byId.get('july')?.signals.relevance).toBe(5);
    expect(byId.get('june')?.signals.relevance).toBeLessThan(byId.get('july')!.signals.relevance);
    // Without a date in the task the label changes nothing: both turns match alike.
    const plain = new Map(scoreCandidates('Where did Melanie go camping?', items, { now: NOW }).map((c) => [c.id, c]));
    expect(plain.get('june')?.signals.relevance).toBeCloseTo(plain.get('july')!.signals.relevance, 1);
  });

  it('matches a named person in the task against who speaks, as a field of its own', () => {
    const items = [
      candidate('nate', { text: 'Nate: I just got a new addition to the family, a dog called Max!', speakers: ['Nate'], session_id: 's1', created_at: day(1) }),
      candidate('joanna', { text: 'Joanna: Nate, my new addition to the family is a dog called Max!', speakers: ['Joanna'], session_id: 's2', created_at: day(2) }),
      candidate('other', { text: 'Joanna: The weather was lovely today.', speakers: ['Joanna'], session_id: 's3', created_at: day(3) }),
    ];
    const byId = new Map(scoreCandidates('What new addition to the family does Nate have?', items, { now: NOW }).map((c) => [c.id, c]));
    // Both turns name Nate and share the task's words; the one he speaks is about him.
    expect(byId.get('nate')?.signals.relevance).toBe(5);
    expect(byId.get('joanna')?.signals.relevance).toBeLessThan(5);
    expect(byId.get('other')?.signals.relevance).toBe(0);
    // Without speakers the text alone tells them apart much less.
    const plain = new Map(scoreCandidates('What new addition to the family does Nate have?', items.map((c) => ({ ...c, speakers: null })), { now: NOW }).map((c) => [c.id, c]));
    const gap = (m: Map<string, { signals: { relevance: number } }>) => m.get('nate')!.signals.relevance - m.get('joanna')!.signals.relevance;
    expect(gap(byId)).toBeGreaterThan(gap(plain) + 0.5);
  });

  it('leaves generic roles out of the speaker field', () => {
    const items = [
      candidate('u', { text: 'My card was declined twice.', speakers: ['user'], session_id: 's1', created_at: day(1) }),
      candidate('a', { text: 'My card was declined twice.', speakers: ['assistant'], session_id: 's2', created_at: day(1) }),
    ];
    const scored = scoreCandidates('What did the user say about the card?', items, { now: NOW });
    expect(scored[0].signals.relevance).toBe(scored[1].signals.relevance);
  });

  it('with word vectors, matches the words nearest to the task’s, below the task’s own words', () => {
    const items = [
      candidate('kick', { text: 'I started kickboxing classes last month.', session_id: 's1', created_at: day(1) }),
      candidate('bike', { text: 'I fixed the brakes on my bike yesterday.', session_id: 's2', created_at: day(2) }),
      candidate('named', { text: 'Martial arts films are fun.', session_id: 's3', created_at: day(3) }),
    ];
    const relevance = (vectors: WordVectors | null) =>
      new Map(scoreCandidates('Which martial arts has he tried?', items, { now: NOW, wordVectors: vectors }).map((c) => [c.id, c.signals.relevance]));
    const plain = relevance(null);
    expect(plain.get('kick')).toBe(0);
    expect(plain.get('named')).toBe(5);
    const expanded = relevance(wordVectors());
    expect(expanded.get('kick')).toBeGreaterThan(0);
    expect(expanded.get('kick')).toBeLessThan(expanded.get('named')!);
    expect(expanded.get('bike')).toBe(0);
  });

  it('breaks ties by newer first, then by id, so identical input gives identical order', () => {
    const items = [
      candidate('b', { created_at: day(2) }),
      candidate('a', { created_at: day(2) }),
      candidate('c', { created_at: day(2) }),
    ];
    const first = scoreCandidates('x', items, { now: NOW }).map((c) => c.id);
    const second = scoreCandidates('x', [...items].reverse(), { now: NOW }).map((c) => c.id);
    expect(first).toEqual(['a', 'b', 'c']);
    expect(second).toEqual(first);
  });
});

describe('selectCandidates', () => {
  const topics = ['gardening', 'chess', 'sailing', 'jazz', 'hiking', 'baking', 'cycling', 'poetry'];
  const manyFacts = Array.from({ length: 2000 }, (_, i) =>
    candidate(`fact-${i}`, {
      label: 'profile_fact',
      text: `User enjoys ${topics[i % topics.length]} number ${i}`,
      created_at: new Date(day(1).getTime() + i * 60_000),
    }),
  );

  /** What a budget takes from the front of the selection order, by the same estimate. */
  const head = (order: readonly ContextCandidate[], budget: number): ContextCandidate[] => {
    const out: ContextCandidate[] = [];
    let used = 0;
    for (const c of order) {
      used += Math.ceil(c.text.length / 4) + 12;
      if (used > budget) break;
      out.push(c);
    }
    return out;
  };

  it('orders every candidate and excludes none', () => {
    const ranked = scoreCandidates('chess openings', manyFacts, { now: NOW });
    const selected = selectCandidates(ranked, { maxTokens: 300 });
    expect(selected).toHaveLength(ranked.length);
    expect(new Set(selected)).toEqual(new Set(ranked));
  });

  it('keeps thousands of unrelated facts from crowding out the episode the task is about', () => {
    const episode = candidate('ep', { text: 'Invoice 7731 was charged twice in March', created_at: day(1) });
    const ranked = scoreCandidates('Why was invoice 7731 charged twice?', [...manyFacts, episode], { now: NOW });
    expect(ranked[0].label).toBe('profile_fact');
    const first = head(selectCandidates(ranked, { maxTokens: 200 }), 200);
    expect(first.map((c) => c.id)).toContain('ep');
    // Facts ahead of it only within their standing share (a fifth of the budget).
    const facts = first.slice(0, first.findIndex((c) => c.id === 'ep'));
    expect(facts.reduce((sum, c) => sum + Math.ceil(c.text.length / 4) + 12, 0)).toBeLessThanOrEqual(40);
  });

  it('gives no standing share to facts the compiler attributed to a named person', () => {
    const episode = candidate('ep', { text: 'Invoice 7731 was charged twice in March', created_at: day(1) });
    const ofCustomer = manyFacts.slice(0, 50);
    const ofCaroline = ofCustomer.map((c) => ({ ...c, id: `named-${c.id}`, speakers: ['Caroline'] }));
    const order = (facts: ContextCandidate[]) =>
      head(selectCandidates(scoreCandidates('Why was invoice 7731 charged twice?', [...facts, episode], { now: NOW }), { maxTokens: 200 }), 200);
    // The customer's facts take their standing share ahead of the match; Caroline's come after it.
    expect(order(ofCustomer.map((c) => ({ ...c, speakers: ['user'] })))[0].label).toBe('profile_fact');
    expect(order(ofCaroline)[0].id).toBe('ep');
  });

  it('lets relevant facts compete beyond the standing share', () => {
    const ranked = scoreCandidates('chess openings', manyFacts, { now: NOW });
    const first = head(selectCandidates(ranked, { maxTokens: 300 }), 300);
    expect(first.length).toBeGreaterThan(3);
    expect(first.filter((c) => c.text.includes('chess')).length).toBeGreaterThanOrEqual(first.length - 2);
  });

  it('fills the front of the order with the relevant items', () => {
    const ranked = scoreCandidates('sailing', manyFacts, { now: NOW });
    const first = head(selectCandidates(ranked, { maxTokens: 500 }), 500);
    const tokens = (cs: ContextCandidate[]) => cs.reduce((sum, c) => sum + Math.ceil(c.text.length / 4) + 12, 0);
    // Besides the standing share (a fifth), the budget's front holds the task's matches.
    expect(tokens(first.filter((c) => !c.text.includes('sailing')))).toBeLessThanOrEqual(100);
    expect(tokens(first)).toBeGreaterThan(450);
  });

  it('orders by composite score when the task gives no relevance signal', () => {
    const items = [candidate('a'), candidate('b', { label: 'profile_fact' })];
    const ranked = scoreCandidates('what is this about?', items, { now: NOW });
    expect(selectCandidates(ranked, { maxTokens: 10 })).toEqual(ranked);
  });

  it('puts the latest items of the current session first whatever their words', () => {
    const session = Array.from({ length: 40 }, (_, i) =>
      candidate(`turn-${i}`, { session_id: 'live', text: `small talk ${i}`, created_at: new Date(day(20).getTime() + i * 1000) }),
    );
    const ranked = scoreCandidates('sailing', [...manyFacts, ...session], { now: NOW, sessionId: 'live' });
    const first = head(selectCandidates(ranked, { maxTokens: 200, sessionId: 'live' }), 200);
    const ids = first.map((c) => c.id);
    expect(ids).toContain('turn-39');
    expect(ids).not.toContain('turn-0');
    expect(first.some((c) => c.text.includes('sailing'))).toBe(true);
  });

  it('gives a customer’s stated preferences and ticket references a share of the budget whatever the task', () => {
    const chatter = Array.from({ length: 30 }, (_, i) =>
      candidate(`chat-${i}`, { text: `user: the weather report number ${i} mentions reply drafts`, created_at: new Date(day(10).getTime() + i * 1000) }),
    );
    const wish = candidate('wish', { label: 'episode_summary', text: 'user: We would rather integrate through the Python SDK.', created_at: day(2) });
    const ticket = candidate('ticket', { text: 'assistant: I escalated it as ticket OPS-7734.', created_at: day(3) });
    const named = candidate('named', { text: 'Caroline: I want to paint a sunrise.', created_at: day(4) });
    const ranked = scoreCandidates('Draft a reply', [...chatter, wish, ticket, named], { now: NOW });
    const ids = head(selectCandidates(ranked, { maxTokens: 300 }), 300).map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['wish', 'ticket']));
    // Between named people "I want" is conversation, not a customer requirement.
    expect(ids).not.toContain('named');
  });
});

describe('dropDuplicates', () => {
  const summary = (id: string, episodes: string[], text = `user: ${id}`) =>
    candidate(id, { label: 'episode_summary', text, source_episode_ids: episodes });
  const raw = (id: string) => candidate(id, { text: `user: ${id}`, source_episode_ids: [id] });

  it('drops a raw episode that a better-ranked summary already covers', () => {
    const ranked = scoreCandidates('x', [summary('s1', ['e1']), raw('e1'), raw('e2')], { now: NOW });
    expect(dropDuplicates(ranked).map((c) => c.id).sort()).toEqual(['e2', 's1']);
  });

  it('drops a summary whose episodes are all in as better-ranked raw episodes', () => {
    const items = [raw('e1'), raw('e2'), summary('s12', ['e1', 'e2']), summary('s1-3', ['e1', 'e3'])];
    const scored = scoreCandidates('x', items, { now: NOW }).map((c) => ({ ...c, score: c.label === 'raw_episode' ? 20 : 10 }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    expect(dropDuplicates(scored).map((c) => c.id)).toEqual(['e1', 'e2', 's1-3']);
  });

  it('keeps one copy of a memory text said twice, the better ranked', () => {
    const items = [
      candidate('f1', { label: 'profile_fact', text: 'I prefer email.' }),
      candidate('f2', { label: 'profile_fact', text: 'i prefer  EMAIL' }),
      candidate('f3', { label: 'profile_fact', text: 'I prefer phone calls.' }),
    ];
    const ranked = scoreCandidates('email', items, { now: NOW });
    const kept = dropDuplicates(ranked).map((c) => c.id);
    expect(kept).toHaveLength(2);
    expect(kept).toContain('f3');
    expect(kept.filter((id) => id === 'f1' || id === 'f2')).toEqual([ranked.find((c) => c.id === 'f1' || c.id === 'f2')!.id]);
  });

  it('keeps facts, procedures and summaries without sources', () => {
    const items = [candidate('f', { label: 'profile_fact' }), candidate('p', { label: 'procedure' }), summary('s', [])];
    const ranked = scoreCandidates('x', items, { now: NOW });
    expect(dropDuplicates(ranked)).toHaveLength(3);
  });
});

describe('selectCandidates with a current session', () => {
  it('puts the admitted session items first even when a better text match ranks above them', () => {
    const items = [
      candidate('match', { text: 'the invoice for March is wrong', session_id: 'old', created_at: day(5) }),
      candidate('live', { text: 'also the invoice for April looks rather odd today', session_id: 'live', created_at: day(5) }),
    ];
    const ranked = scoreCandidates('invoice March', items, { now: NOW, sessionId: 'live' });
    expect(ranked[0].id).toBe('match');
    expect(selectCandidates(ranked, { maxTokens: 200, sessionId: 'live' }).map((c) => c.id)).toEqual(['live', 'match']);
  });

  it('orders episodes sharing one timestamp by their sequence', () => {
    const items = [candidate('b', { seq: 2 }), candidate('a', { seq: 1 })];
    expect(scoreCandidates('x', items, { now: NOW }).map((c) => c.id)).toEqual(['b', 'a']);
  });
});
