import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../api.js';
import { ErrorView } from '../components/error-view.js';
import { ScoreTable, SectionCosts } from '../components/score-table.js';
import type { Candidate, SectionCost } from '../components/score-table.js';
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

export interface Explanation {
  bundle: ContextBundle;
  max_tokens: number;
  session_id: string | null;
  candidates: Candidate[];
  sections: SectionCost[];
}

/**
 * Task, budget and session in; the bundle exactly as an agent gets it out, next to every
 * candidate's score and why it is in or out (POST /v1/context/explain).
 */
export function ContextPage({ session, initialSubject }: { session: Session; initialSubject: string }) {
  const [subject, setSubject] = useState(initialSubject);
  const [task, setTask] = useState('');
  const [maxTokens, setMaxTokens] = useState('1000');
  const [sessionId, setSessionId] = useState('');
  const [saveReceipt, setSaveReceipt] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<Explanation | null>(null);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { subject_id: subject.trim(), task, max_tokens: Number(maxTokens), session_id: sessionId.trim() || undefined, emit_receipt: saveReceipt || undefined };
      setResult(await api(session, (c) => c.explainContext(body)));
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
      {result ? (
        <>
          <div class="split">
            <section aria-label="Bundle">
              <h2>Bundle as the agent gets it</h2>
              {result.bundle.receipt_id ? (
                <p>
                  Saved as receipt <a href={href(['receipts', result.bundle.receipt_id])} data-testid="receipt-link">{result.bundle.receipt_id}</a>
                </p>
              ) : null}
              <pre class="bundle" data-testid="bundle">{result.bundle.assembled_context}</pre>
            </section>
            <section aria-label="Token cost">
              <h2>Token cost</h2>
              <SectionCosts sections={result.sections} total={result.bundle.token_estimate} budget={result.max_tokens} />
              <p class="muted">
                Score = kind priority + recency + relevance + validity. Items of the requested session get recency 5 (the rest share 0–4) and are packed first; packing then
                takes standing facts, the items most relevant to the task, and the best of the rest while they fit.
              </p>
            </section>
          </div>
          <ScoreTable candidates={result.candidates} />
        </>
      ) : null}
    </main>
  );
}
