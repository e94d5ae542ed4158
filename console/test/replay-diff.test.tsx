import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { ReplayDiffView } from '../src/components/replay-diff.js';
import { changedEntries } from '../src/replay-diff.js';
import type { ReplayResult, SelectedEntry } from '../src/replay-diff.js';

const memory = (id: string, over: Partial<SelectedEntry> = {}): SelectedEntry => ({
  type: 'memory',
  memory_id: id,
  episode_id: null,
  kind: 'preference',
  rank: 0,
  score: 12.5,
  supersession_status: 'active',
  valid_to: null,
  provenance_hash: 'a'.repeat(64),
  conflict_status: 'none',
  ...over,
});

const result = (over: Partial<ReplayResult['diff']> = {}): ReplayResult => ({
  original_receipt_id: 'orig',
  replay_receipt_id: 'replay-receipt-1',
  as_of: '2026-11-27T03:00:00.000Z',
  diff: {
    context_hash: { original: 'h1', replay: 'h2', changed: true },
    selected_entries: { added: [memory('added00000')], removed: [memory('removed000', { kind: 'profile_fact' })], common: 2 },
    filters_applied: { added: [], removed: [] },
    as_of_applied: true,
    note: null,
    ...over,
  },
});

describe('changedEntries', () => {
  it('lists entries in both receipts whose rank, score, status or content hash moved, and no others', () => {
    const original = [memory('same000000'), memory('moved00000', { rank: 1 }), memory('gone000000', { rank: 2 })];
    const replay = [memory('moved00000', { rank: 0, supersession_status: 'superseded', provenance_hash: 'b'.repeat(64) }), memory('same000000', { rank: 1 }), memory('new0000000', { rank: 2 })];
    const changed = changedEntries(original, replay);
    assert.deepEqual(
      changed.map((c) => [c.entry.memory_id, c.changes]),
      [
        ['moved00000', [{ field: 'rank', before: '1', after: '0' }, { field: 'supersession_status', before: 'active', after: 'superseded' }, { field: 'provenance_hash', before: 'aaaaaaaaaaaa…', after: 'bbbbbbbbbbbb…' }]],
        ['same000000', [{ field: 'rank', before: '0', after: '1' }]],
      ],
    );
  });

  it('matches an episode entry by its episode id', () => {
    const ep = (rank: number): SelectedEntry => ({ ...memory('x'), type: 'episode', memory_id: null, episode_id: 'ep-1', kind: null, rank });
    assert.equal(changedEntries([ep(0)], [ep(0)]).length, 0);
    assert.deepEqual(changedEntries([ep(0)], [ep(3)])[0]?.changes, [{ field: 'rank', before: '0', after: '3' }]);
  });
});

describe('ReplayDiffView', () => {
  it('renders added, removed and changed items as lists and a table, not JSON', () => {
    const html = render(<ReplayDiffView result={result()} originalEntries={[memory('kept000000', { score: 10 })]} replayEntries={[memory('kept000000', { score: 11.25 })]} />);
    assert.match(html, /context hash changed/);
    assert.match(html, /1 added, 1 removed, 1 changed, 2 in both/);
    assert.match(html, /Added \(1\)<\/h3><ul><li>memory preference added00/);
    assert.match(html, /Removed \(1\)<\/h3><ul><li>memory profile_fact removed0/);
    assert.match(html, /<td>memory preference kept0000<\/td><td>score<\/td><td>10<\/td><td>11.25<\/td>/);
    assert.match(html, /href="#\/receipts\/replay-receipt-1"/);
    assert.doesNotMatch(html, /"diff"|\{"/);
  });

  it('says "unchanged" and "None." for a replay that reproduced the bundle, and waits for the replay receipt before counting changes', () => {
    const same = result({ context_hash: { original: 'h', replay: 'h', changed: false }, selected_entries: { added: [], removed: [], common: 3 } });
    const html = render(<ReplayDiffView result={same} originalEntries={[]} replayEntries={[]} />);
    assert.match(html, /context hash unchanged/);
    assert.match(html, /0 added, 0 removed, 0 changed, 3 in both/);
    assert.equal(html.match(/None\./g)?.length, 3);
    assert.match(render(<ReplayDiffView result={same} originalEntries={[]} replayEntries={null} />), /… changed/);
  });
});
