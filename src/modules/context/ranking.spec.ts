import { ContextCandidate, dropDuplicates, KIND_PRIORITY, scoreCandidates, selectCandidates } from './ranking';

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

  it('keeps thousands of unrelated facts from crowding out the episode the task is about', () => {
    const episode = candidate('ep', { text: 'Invoice 7731 was charged twice in March', created_at: day(1) });
    const ranked = scoreCandidates('Why was invoice 7731 charged twice?', [...manyFacts, episode], { now: NOW });
    expect(ranked[0].label).toBe('profile_fact');
    const selected = selectCandidates(ranked, { maxTokens: 200 });
    expect(selected.map((c) => c.id)).toContain('ep');
    expect(selected.filter((c) => c.label === 'profile_fact')).toHaveLength(3);
  });

  it('lets relevant facts compete beyond the pinned ones', () => {
    const ranked = scoreCandidates('chess openings', manyFacts, { now: NOW });
    const selected = selectCandidates(ranked, { maxTokens: 300 });
    expect(selected.length).toBeGreaterThan(3);
    expect(selected.every((c) => c.text.includes('chess'))).toBe(true);
  });

  it('bounds the pool by the budget and keeps score order', () => {
    const ranked = scoreCandidates('sailing', manyFacts, { now: NOW });
    const selected = selectCandidates(ranked, { maxTokens: 500 });
    const estimated = selected.reduce((sum, c) => sum + Math.ceil(c.text.length / 4) + 12, 0);
    expect(estimated).toBeLessThan(500 + 40);
    const positions = selected.map((c) => ranked.indexOf(c));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('lets everything compete when the task gives no relevance signal', () => {
    const items = [candidate('a'), candidate('b', { label: 'profile_fact' })];
    const ranked = scoreCandidates('what is this about?', items, { now: NOW });
    expect(selectCandidates(ranked, { maxTokens: 10 })).toEqual(ranked);
  });

  it('admits the latest items of the current session whatever their words', () => {
    const session = Array.from({ length: 40 }, (_, i) =>
      candidate(`turn-${i}`, { session_id: 'live', text: `small talk ${i}`, created_at: new Date(day(20).getTime() + i * 1000) }),
    );
    const ranked = scoreCandidates('sailing', [...manyFacts, ...session], { now: NOW, sessionId: 'live' });
    const selected = selectCandidates(ranked, { maxTokens: 200, sessionId: 'live' });
    const ids = selected.map((c) => c.id);
    expect(ids).toContain('turn-39');
    expect(ids).not.toContain('turn-0');
    expect(selected.some((c) => c.text.includes('sailing'))).toBe(true);
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
