import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { outcome, ScoreTable, SectionCosts } from '../src/components/score-table.js';
import type { Candidate } from '../src/components/score-table.js';

const candidate = (over: Partial<Candidate>): Candidate => ({
  id: 'c',
  source: 'memory',
  kind: 'profile_fact',
  text: 'I prefer email.',
  created_at: '2026-01-01T00:00:00.000Z',
  session_id: null,
  in_session: false,
  score: 17.5,
  components: { kind_priority: 10, recency: 2.25, relevance: 2.25, validity: 3 },
  included: true,
  reason: null,
  rank: 0,
  pack_order: 0,
  section: '## About this user',
  tokens: 9,
  policy_rule_id: null,
  policy_action: null,
  ...over,
});

const rows = [
  candidate({ id: 'in-1' }),
  candidate({ id: 'ep-1', source: 'episode', kind: 'raw_episode', in_session: true, session_id: 's2', score: 13, components: { kind_priority: 3, recency: 5, relevance: 2, validity: 3 }, section: '### Current session (s2)' }),
  candidate({ id: 'dup-1', included: false, reason: 'duplicate', rank: null, section: null }),
  candidate({ id: 'big-1', included: false, reason: 'budget', rank: null, section: null, tokens: 400 }),
  candidate({ id: 'deny-1', included: false, reason: 'policy_denied', text: null, score: null, components: null, tokens: null, rank: null, section: null, policy_rule_id: 'no-health', policy_action: 'denied' }),
];

describe('score table', () => {
  it('shows every candidate with its components, outcome and token cost', () => {
    const html = render(<ScoreTable candidates={rows} />);
    assert.match(html, /2 included, 3 left out/);
    assert.equal((html.match(/<tr class="(in|left-out)"/g) ?? []).length, 5);
    assert.match(html, /data-id="in-1" data-reason="included"/);
    assert.match(html, /17\.50/);
    assert.match(html, /2\.25/);
    assert.match(html, /boosted \(s2\)/);
    assert.match(html, /### Current session \(s2\)/);
  });

  it('says why each left-out item is out, and withholds a denied memory’s text', () => {
    const html = render(<ScoreTable candidates={rows} />);
    assert.match(html, /data-reason="duplicate"[^]*?a better-ranked item says the same/);
    assert.match(html, /data-reason="budget"[^]*?no room in the budget/);
    assert.match(html, /denied by policy \(no-health\)/);
    assert.match(html, /withheld by policy/);
    assert.equal(outcome(candidate({ policy_action: 'would_deny', policy_rule_id: 'r1' })), 'included (policy r1 would deny)');
  });

  it('renders an empty state when there is no candidate', () => {
    assert.match(render(<ScoreTable candidates={[]} />), /No candidate here/);
  });

  it('costs each section and the total against the budget', () => {
    const html = render(<SectionCosts sections={[{ heading: '## Task', tokens: 12, items: 0 }, { heading: '## About this user', tokens: 30, items: 3 }]} total={42} budget={400} />);
    assert.match(html, /42 of 400 tokens used/);
    assert.match(html, /## About this user<\/td><td class="num">3<\/td><td class="num">30/);
  });
});
