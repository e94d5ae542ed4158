import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Memory, MemoryKind, Session } from '../api.js';
import { ErrorView } from './error-view.js';

/** The kinds POST /v1/memories accepts (openapi.json, RememberMemoryDto.kind). */
export const MEMORY_KINDS = ['profile_fact', 'episode_summary', 'procedure', 'artifact_ref'] as const;

/**
 * Remember: a new memory written through `POST /v1/memories` (origin `api`, no source episode).
 * It supersedes the subject's active memory it restates (same kind and attribute key); those are
 * read back (`metadata.supersedes`) so the timeline shows them replaced. The service's
 * validation errors (content length, labels) show as its envelope.
 */
export function RememberForm({ session, subjectId, onMemory, onDone }: { session: Session; subjectId: string; onMemory: (m: Memory) => void; onDone: (m: Memory | null) => void }) {
  const [kind, setKind] = useState<MemoryKind>('profile_fact');
  const [content, setContent] = useState('');
  const [labels, setLabels] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const sensitivity = labels.split(',').map((s) => s.trim()).filter(Boolean);
      const body = { subject_id: subjectId, kind, content, ...(sensitivity.length ? { sensitivity_labels: sensitivity } : {}) };
      const created = await api(session, (c) => c.remember(body));
      const replaced = Array.isArray(created.metadata?.['supersedes']) ? (created.metadata['supersedes'] as unknown[]).filter((x): x is string => typeof x === 'string') : [];
      for (const id of replaced) onMemory(await api(session, (c) => c.getMemory(id)));
      onMemory(created);
      onDone(created);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="confirm remember" aria-label="Remember a memory" onSubmit={submit}>
      <label>
        Kind
        <select name="remember-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as MemoryKind)}>
          {MEMORY_KINDS.map((k) => (
            <option value={k} key={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label>
        Content
        <textarea name="remember-content" rows={3} required maxLength={10000} value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      </label>
      <label>
        Sensitivity labels (comma-separated, optional)
        <input name="remember-labels" value={labels} placeholder="e.g. pii" onInput={(e) => setLabels(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy || content.trim() === ''}>
        Remember
      </button>{' '}
      <button type="button" onClick={() => onDone(null)}>
        Cancel
      </button>
      {error ? <ErrorView error={error} /> : null}
    </form>
  );
}
