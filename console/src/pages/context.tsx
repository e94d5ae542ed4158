import { useState } from 'preact/hooks';
import { call } from '../api.js';
import type { Session } from '../api.js';
import { ErrorView } from '../components/error-view.js';
import { href } from '../route.js';

export interface ContextBundle {
  receipt_id: string | null;
  receipt_emitted: boolean;
  subject_id: string;
  task: string;
  assembled_context: string;
  token_estimate: number;
  provenance: { fact_ids: string[]; summary_ids: string[]; procedure_ids: string[]; episode_ids: string[] };
}

/** Task, budget and session in; the bundle exactly as an agent gets it out (POST /v1/context). */
export function ContextPage({ session, initialSubject }: { session: Session; initialSubject: string }) {
  const [subject, setSubject] = useState(initialSubject);
  const [task, setTask] = useState('');
  const [maxTokens, setMaxTokens] = useState('1000');
  const [sessionId, setSessionId] = useState('');
  const [saveReceipt, setSaveReceipt] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [bundle, setBundle] = useState<ContextBundle | null>(null);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { subject_id: subject.trim(), task, max_tokens: Number(maxTokens), session_id: sessionId.trim() || undefined, emit_receipt: saveReceipt || undefined };
      setBundle(await call<ContextBundle>(session, 'POST', '/v1/context', body));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main>
      <h1>Context inspector</h1>
      <form class="inspector" onSubmit={submit}>
        <label>
          Subject
          <input name="subject" value={subject} onInput={(e) => setSubject(e.currentTarget.value)} required />
        </label>
        <label class="wide">
          Task
          <textarea name="task" rows={2} value={task} onInput={(e) => setTask(e.currentTarget.value)} required />
        </label>
        <label>
          Budget (tokens)
          <input name="max_tokens" type="number" min={1} max={128000} value={maxTokens} onInput={(e) => setMaxTokens(e.currentTarget.value)} required />
        </label>
        <label>
          Session (optional)
          <input name="session_id" value={sessionId} onInput={(e) => setSessionId(e.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" name="emit_receipt" checked={saveReceipt} onChange={(e) => setSaveReceipt(e.currentTarget.checked)} /> Save as receipt
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Assembling…' : 'Inspect'}
        </button>
      </form>
      {error ? <ErrorView error={error} /> : null}
      {bundle ? (
        <section aria-label="Bundle">
          <h2>
            Bundle · {bundle.token_estimate} of {maxTokens} tokens
          </h2>
          {bundle.receipt_id ? (
            <p>
              Saved as receipt <a href={href(['receipts', bundle.receipt_id])} data-testid="receipt-link">{bundle.receipt_id}</a>
            </p>
          ) : null}
          <pre class="bundle" data-testid="bundle">{bundle.assembled_context}</pre>
        </section>
      ) : null}
    </main>
  );
}
