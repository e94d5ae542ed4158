import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import type { Episode, Memory } from '../src/api.js';
import { TimelineRow } from '../src/components/timeline-row.js';
import { VirtualList, visibleRange } from '../src/components/virtual-list.js';
import { buildTimeline, facets, versionsOf } from '../src/timeline.js';

const episode = (id: string, at: string, session: string | null, text: string): Episode => ({
  id,
  subject_id: 's',
  session_id: session,
  source: 'chat',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: text }] },
  metadata: {},
  provenance: {},
  created_at: at,
  compiled: true,
});
const memory = (id: string, at: string, kind: Memory['kind'], status: Memory['status'], sources: string[], extra: Partial<Memory> = {}): Memory => ({
  id,
  subject_id: 's',
  kind,
  content: `content of ${id}`,
  summary: '',
  confidence: 1,
  status,
  origin: 'compile',
  valid_from: at,
  valid_to: null,
  source_episode_ids: sources,
  metadata: {},
  created_at: at,
  updated_at: at,
  sensitivity_labels: [],
  ...extra,
});

const episodes = [episode('e1', '2026-01-01T10:00:00.000Z', 'a', 'I prefer email'), episode('e2', '2026-01-02T10:00:00.000Z', 'b', 'My plan is Team')];
const memories = [
  memory('m1', '2026-01-01T10:00:00.000Z', 'profile_fact', 'superseded', ['e1']),
  memory('m2', '2026-01-02T10:00:00.000Z', 'profile_fact', 'active', ['e2'], { metadata: { supersedes: ['m1'] }, sensitivity_labels: ['pii'] }),
  memory('m3', '2026-01-02T10:00:00.000Z', 'episode_summary', 'tombstoned', ['e2'], { content: '' }),
];

describe('timeline', () => {
  it('interleaves episodes and memories newest first, a memory before the episode it came from', () => {
    const ids = buildTimeline(episodes, memories).map((i) => (i.type === 'episode' ? i.episode.id : i.memory.id));
    assert.deepEqual(ids, ['m2', 'm3', 'e2', 'm1', 'e1']);
  });

  it('filters by kind, status, session (memories by the session of their source episodes), text and labels', () => {
    const ids = (f: Partial<Parameters<typeof buildTimeline>[2]>) =>
      buildTimeline(episodes, memories, { kind: '', status: '', session: '', text: '', labels: '', ...f }).map((i) => (i.type === 'episode' ? i.episode.id : i.memory.id));
    assert.deepEqual(ids({ kind: 'episode' }), ['e2', 'e1']);
    assert.deepEqual(ids({ kind: 'profile_fact' }), ['m2', 'm1']);
    assert.deepEqual(ids({ status: 'tombstoned' }), ['m3']);
    assert.deepEqual(ids({ session: 'a' }), ['m1', 'e1']);
    assert.deepEqual(ids({ text: 'EMAIL' }), ['e1']);
    assert.deepEqual(ids({ labels: 'health, PII' }), ['m2']);
  });

  it('lists the facets present and the versions around a memory in both directions', () => {
    assert.deepEqual(facets(episodes, memories), { sessions: ['a', 'b'], kinds: ['episode_summary', 'profile_fact'], statuses: ['active', 'superseded', 'tombstoned'] });
    assert.deepEqual(versionsOf(memories[0]!, memories), { supersedes: [], supersededBy: ['m2'] });
    assert.deepEqual(versionsOf(memories[1]!, memories), { supersedes: ['m1'], supersededBy: [] });
  });

  it('links a compiled supersession (superseded_by only, no metadata.supersedes) in both directions, and lists a link given twice once', () => {
    const old = memory('c1', '2026-01-01T00:00:00.000Z', 'profile_fact', 'superseded', [], { superseded_by: 'c2' });
    const compiled = memory('c2', '2026-01-02T00:00:00.000Z', 'profile_fact', 'active', []);
    assert.deepEqual(versionsOf(old, [old, compiled]), { supersedes: [], supersededBy: ['c2'] });
    assert.deepEqual(versionsOf(compiled, [old, compiled]), { supersedes: ['c1'], supersededBy: [] });
    const remembered = memory('c3', '2026-01-02T00:00:00.000Z', 'profile_fact', 'active', [], { metadata: { supersedes: ['c1'] } });
    const both = { ...old, superseded_by: 'c3' };
    assert.deepEqual(versionsOf(both, [both, remembered]), { supersedes: [], supersededBy: ['c3'] });
    assert.deepEqual(versionsOf(remembered, [both, remembered]), { supersedes: ['c1'], supersededBy: [] });
  });

  it('renders a tombstoned memory row with its status and an erased-content marker', () => {
    const [row] = buildTimeline(episodes, memories, { kind: '', status: 'tombstoned', session: '', text: '', labels: '' });
    const html = render(<TimelineRow item={row!} selected={false} onSelect={() => undefined} />);
    assert.match(html, /data-status="tombstoned"/);
    assert.match(html, /\(content erased\)/);
    assert.match(html, /episode_summary/);
  });

  it('renders an episode row with its messages as text', () => {
    const row = buildTimeline(episodes, memories, { kind: 'episode', status: '', session: 'a', text: '', labels: '' })[0]!;
    const html = render(<TimelineRow item={row} selected onSelect={() => undefined} />);
    assert.match(html, /user: I prefer email/);
    assert.match(html, /aria-pressed="true"/);
  });

  it('virtualises: 10,000 rows render only the window in view', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => i);
    const html = render(<VirtualList label="t" items={many} rowHeight={40} height={400} overscan={5} render={(n) => <span class="n">{n}</span>} />);
    assert.equal((html.match(/class="n"/g) ?? []).length, 15);
    assert.match(html, /height:400000px/);
    assert.deepEqual(visibleRange(10_000, 40, 400, 40 * 5000, 5), { first: 4995, last: 5015 });
    assert.deepEqual(visibleRange(3, 40, 400, 0, 5), { first: 0, last: 3 });
  });
});
