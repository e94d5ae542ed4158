import { changedEntries, entryKey, entryLabel } from '../replay-diff.js';
import type { PolicyFilter, ReplayResult, SelectedEntry } from '../replay-diff.js';
import { href } from '../route.js';

function Entries({ title, entries, testid }: { title: string; entries: readonly SelectedEntry[]; testid: string }) {
  return (
    <section aria-label={title} data-testid={testid}>
      <h3>
        {title} ({entries.length})
      </h3>
      {entries.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul>
          {entries.map((e) => (
            <li key={entryKey(e)}>
              {entryLabel(e)} <span class="muted">rank {e.rank}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Filters({ title, filters }: { title: string; filters: readonly PolicyFilter[] }) {
  if (filters.length === 0) return null;
  return (
    <section aria-label={title}>
      <h3>
        {title} ({filters.length})
      </h3>
      <ul>
        {filters.map((f) => (
          <li key={`${f.rule_id}|${f.memory_id}|${f.action}`}>
            rule <code>{f.rule_id}</code> {f.action} memory {f.memory_id.slice(0, 8)} ({f.labels.join(', ')})
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * A replay's diff rendered: whether the context hash held, the entries added, removed and changed
 * (changed: in both receipts with another rank, score, status or content hash), and the policy
 * filters that came or went. `originalEntries` and `replayEntries` are the two receipts' own
 * selected entries; without the replay's (still loading) no changes are listed.
 */
export function ReplayDiffView({ result, originalEntries, replayEntries }: { result: ReplayResult; originalEntries: readonly SelectedEntry[]; replayEntries: readonly SelectedEntry[] | null }) {
  const d = result.diff;
  const changed = replayEntries ? changedEntries(originalEntries, replayEntries) : null;
  return (
    <div class="replay-diff" data-testid="replay">
      <p>
        <span class={`pill ${d.context_hash.changed ? 'bad' : 'ok'}`} data-testid="replay-hash">
          context hash {d.context_hash.changed ? 'changed' : 'unchanged'}
        </span>{' '}
        as of {result.as_of} · replay receipt <a href={href(['receipts', result.replay_receipt_id])}>{result.replay_receipt_id.slice(0, 12)}…</a>
      </p>
      <p data-testid="replay-summary">
        {d.selected_entries.added.length} added, {d.selected_entries.removed.length} removed, {changed ? changed.length : '…'} changed, {d.selected_entries.common} in both
      </p>
      {d.note ? <p class="muted">{d.note}</p> : null}
      <div class="diff-cols">
        <Entries title="Added" entries={d.selected_entries.added} testid="replay-added" />
        <Entries title="Removed" entries={d.selected_entries.removed} testid="replay-removed" />
      </div>
      <section aria-label="Changed" data-testid="replay-changed">
        <h3>Changed ({changed ? changed.length : '…'})</h3>
        {changed && changed.length === 0 ? <p class="muted">None.</p> : null}
        {changed && changed.length > 0 ? (
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">Entry</th>
                <th scope="col">Field</th>
                <th scope="col">Original</th>
                <th scope="col">Replay</th>
              </tr>
            </thead>
            <tbody>
              {changed.flatMap((c) =>
                c.changes.map((f, i) => (
                  <tr key={`${entryKey(c.entry)}|${f.field}`}>
                    <td>{i === 0 ? entryLabel(c.entry) : ''}</td>
                    <td>{f.field}</td>
                    <td>{f.before}</td>
                    <td>{f.after}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        ) : null}
      </section>
      <Filters title="Policy filters added" filters={d.filters_applied.added} />
      <Filters title="Policy filters removed" filters={d.filters_applied.removed} />
    </div>
  );
}
