import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Memory, Session } from '../api.js';
import { ErrorView } from './error-view.js';

/**
 * Forget (with a confirmation: it erases the content of this memory and the versions it
 * replaced), correct (a new version) and relabel, through the public memory endpoints.
 * After each, the memory is read back so the timeline shows what the service now holds.
 */
export function MemoryActions({ session, memory, onMemory, onSelect }: { session: Session; memory: Memory; onMemory: (m: Memory) => void; onSelect: (id: string) => void }) {
  const [mode, setMode] = useState<'' | 'forget' | 'correct' | 'labels'>('');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const active = memory.status === 'active';
  const id = memory.id;

  async function run(fn: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await fn();
      setMode('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const forget = () =>
    run(async () => {
      await api(session, (c) => c.forgetMemory(id));
      onMemory(await api(session, (c) => c.getMemory(id)));
    });
  const correct = () =>
    run(async () => {
      const next = await api(session, (c) => c.correctMemory(id, { content: text }));
      onMemory(await api(session, (c) => c.getMemory(id)));
      onMemory(next);
      onSelect(next.id);
    });
  const relabel = () =>
    run(async () => {
      const labels = text.split(',').map((s) => s.trim()).filter(Boolean);
      onMemory(await api(session, (c) => c.setMemoryLabels(id, { sensitivity_labels: labels })));
    });

  return (
    <section class="actions" aria-label="Memory actions">
      <div class="toolbar">
        <button type="button" disabled={!active || busy} onClick={() => (setMode('correct'), setText(memory.content))}>
          Correct…
        </button>
        <button type="button" disabled={memory.status === 'tombstoned' || busy} onClick={() => (setMode('labels'), setText((memory.sensitivity_labels ?? []).join(', ')))}>
          Relabel…
        </button>
        <button type="button" class="danger" disabled={memory.status === 'tombstoned' || busy} onClick={() => setMode('forget')}>
          Forget…
        </button>
      </div>
      {mode === 'forget' ? (
        <div class="confirm" role="alertdialog" aria-label="Confirm forget">
          <p>Forget this memory? Its content and the content of the versions it replaced are erased; a tombstone keeps its id so receipts citing it still resolve. The source episodes stay.</p>
          <button type="button" class="danger" onClick={forget} disabled={busy} autoFocus>
            Forget memory
          </button>{' '}
          <button type="button" onClick={() => setMode('')}>
            Cancel
          </button>
        </div>
      ) : null}
      {mode === 'correct' || mode === 'labels' ? (
        <form
          class="confirm"
          onSubmit={(e) => {
            e.preventDefault();
            void (mode === 'correct' ? correct() : relabel());
          }}
        >
          <label>
            {mode === 'correct' ? 'Corrected content' : 'Sensitivity labels (comma-separated)'}
            {mode === 'correct' ? <textarea name="content" value={text} onInput={(e) => setText(e.currentTarget.value)} rows={3} required /> : <input name="labels" value={text} onInput={(e) => setText(e.currentTarget.value)} />}
          </label>
          <button type="submit" disabled={busy}>
            Save
          </button>{' '}
          <button type="button" onClick={() => setMode('')}>
            Cancel
          </button>
        </form>
      ) : null}
      {error ? <ErrorView error={error} /> : null}
    </section>
  );
}
