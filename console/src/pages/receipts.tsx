import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { ReceiptSummary, Session, Verdict } from '../api.js';
import { Empty, ErrorView, Loading } from '../components/error-view.js';
import { ReplayDiffView } from '../components/replay-diff.js';
import { formatTime } from '../components/timeline-row.js';
import type { ReplayResult, SelectedEntry } from '../replay-diff.js';
import { href } from '../route.js';

/** The tenant's receipts, newest first, a cursor page at a time; optionally one subject's. */
export function ReceiptsPage({ session, subjectId }: { session: Session; subjectId: string | null }) {
  const [rows, setRows] = useState<ReceiptSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    api(session, (c) => c.listReceipts({ limit: 50, cursor: cursor ?? undefined, subject_id: subjectId || undefined }))
      .then((page) => {
        if (!live) return;
        setRows((xs) => (cursor ? xs.concat(page.receipts) : page.receipts));
        setNext(page.next_cursor);
      })
      .catch((e) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [session, subjectId, cursor]);

  return (
    <main>
      <h1>Receipts{subjectId ? ` of ${subjectId}` : ''}</h1>
      {error ? <ErrorView error={error} /> : null}
      {loading && rows.length === 0 ? <Loading what="receipts" /> : null}
      {!loading && !error && rows.length === 0 ? <Empty>No receipts yet: ask for a context bundle with “save as receipt”.</Empty> : null}
      {rows.length > 0 ? (
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Subject</th>
              <th scope="col">Task</th>
              <th scope="col">Receipt</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.receipt_id}>
                <td>{formatTime(r.created_at)}</td>
                <td>{r.subject_id}</td>
                <td>{r.task ?? ''}</td>
                <td>
                  <a href={href(['receipts', r.receipt_id])}>{r.receipt_id.slice(0, 12)}…</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {next ? (
        <button type="button" onClick={() => setCursor(next)} disabled={loading}>
          More
        </button>
      ) : null}
    </main>
  );
}

/** One receipt as stored, and its signature checked by the service (GET …/verify). */
export function ReceiptPage({ session, receiptId }: { session: Session; receiptId: string }) {
  const [receipt, setReceipt] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [verifyError, setVerifyError] = useState<unknown>(null);
  const id = receiptId;

  useEffect(() => {
    let live = true;
    setReceipt(null);
    setVerdict(null);
    api(session, (c) => c.getReceipt(id))
      .then((r) => live && setReceipt(r))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [session, id]);

  const [replay, setReplay] = useState<ReplayResult | null>(null);
  const [replayEntries, setReplayEntries] = useState<SelectedEntry[] | null>(null);
  const [replayError, setReplayError] = useState<unknown>(null);
  /** `original`: the data as it stood then (reproduces the bundle); `now`: today's data. */
  async function runReplay(asOf: 'original' | 'now') {
    setReplayError(null);
    setReplay(null);
    setReplayEntries(null);
    try {
      const result = await api(session, (c) => c.replayReceipt(id, { as_of: asOf }));
      setReplay(result);
      // The diff counts the entries in both; the replay receipt's own entries tell what changed in them.
      const written = await api(session, (c) => c.getReceipt(result.replay_receipt_id));
      setReplayEntries(written.selected_entries);
    } catch (e) {
      setReplayError(e);
    }
  }

  async function verify() {
    setVerifyError(null);
    try {
      setVerdict(await api(session, (c) => c.verifyReceipt(id)));
    } catch (e) {
      setVerifyError(e);
    }
  }

  return (
    <main>
      <h1>
        Receipt <code>{receiptId}</code>
      </h1>
      {error ? <ErrorView error={error} /> : null}
      {!receipt && !error ? <Loading what="the receipt" /> : null}
      {receipt ? (
        <>
          <div class="toolbar">
            <button type="button" onClick={verify}>
              Verify signature
            </button>
            {verdict ? (
              <span class={`pill ${verdict.valid ? 'ok' : 'bad'}`} data-testid="verdict" role="status">
                {verdict.valid ? 'valid' : 'not valid'} · {verdict.reason}
                {verdict.key_id ? ` · key ${verdict.key_id}` : ''}
              </span>
            ) : null}
          </div>
          {verifyError ? <ErrorView error={verifyError} /> : null}
          <div class="toolbar">
            <button type="button" onClick={() => runReplay('original')}>
              Replay as of the original instant
            </button>
            <button type="button" onClick={() => runReplay('now')}>
              Replay with today’s data
            </button>
          </div>
          {replayError ? <ErrorView error={replayError} /> : null}
          {replay ? (
            <section aria-label="Replay">
              <h2>Replay diff</h2>
              <ReplayDiffView result={replay} originalEntries={(receipt.selected_entries as SelectedEntry[] | undefined) ?? []} replayEntries={replayEntries} />
            </section>
          ) : null}
          <pre class="details receipt">{JSON.stringify(receipt, null, 2)}</pre>
        </>
      ) : null}
    </main>
  );
}
