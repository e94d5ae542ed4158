import { useEffect, useState } from 'preact/hooks';
import { call, withQuery } from '../api.js';
import type { Session } from '../api.js';
import { Empty, ErrorView, Loading } from '../components/error-view.js';
import { JobsTable } from '../components/jobs-table.js';
import { WebhookEventView } from '../components/webhook-event.js';
import type { WebhookEvent } from '../components/webhook-event.js';
import type { Job } from '../components/jobs-table.js';
import { formatTime } from '../components/timeline-row.js';

/**
 * Operator endpoints (/admin): they need a key holding the operator role, and take the tenant as
 * a `tenant_id` filter rather than the header (docs/operations.md). A client key sees each
 * section's 403 envelope.
 */
export function OperatorPage({ session }: { session: Session }) {
  return (
    <main>
      <h1>Operator</h1>
      <p class="muted">{session.tenant ? `Filtered to tenant ${session.tenant}.` : 'All tenants.'} These pages need an operator key.</p>
      <Jobs session={session} />
      <Webhooks session={session} />
      <Policy session={session} />
    </main>
  );
}

const JOB_STATUSES = ['', 'pending', 'running', 'completed', 'failed'];

function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): { data: T | null; error: unknown; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setData(null);
    setError(null);
    fn()
      .then((d) => live && setData(d))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((n) => n + 1) };
}

function Jobs({ session }: { session: Session }) {
  const [status, setStatus] = useState('');
  const { data, error } = useLoad(() => call<{ jobs: Job[] }>(session, 'GET', withQuery('/admin/jobs', { status, tenant_id: session.tenant, limit: 50 })), [session, status]);
  // Jobs as the requeue answered them, shown in place of the listed row (no reload: the list keeps its order).
  const [requeued, setRequeued] = useState<Record<string, Job>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [done, setDone] = useState<Job | null>(null);
  // A fresh listing is newer than any requeue answer: drop them, or a job the worker has since
  // completed would still show as pending.
  useEffect(() => setRequeued({}), [data]);
  async function requeue(job: Job) {
    setBusy(job.job_id);
    setActionError(null);
    setDone(null);
    try {
      const path = withQuery(`/admin/jobs/${encodeURIComponent(job.job_id)}/requeue`, { tenant_id: session.tenant });
      const now = await call<Job>(session, 'POST', path);
      setRequeued((r) => ({ ...r, [now.job_id]: now }));
      setDone(now);
    } catch (e) {
      setActionError(e);
    } finally {
      setBusy(null);
    }
  }
  const jobs = data ? data.jobs.map((j) => requeued[j.job_id] ?? j) : [];
  return (
    <section aria-label="Compile jobs">
      <h2>Compile jobs</h2>
      <label>
        Status
        <select name="job-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          {JOB_STATUSES.map((s) => (
            <option value={s} key={s}>
              {s || 'all'}
            </option>
          ))}
        </select>
      </label>
      {error ? <ErrorView error={error} /> : null}
      {!data && !error ? <Loading what="jobs" /> : null}
      {data && data.jobs.length === 0 ? <Empty>No compile job{status ? ` is ${status}` : ''}.</Empty> : null}
      {data && data.jobs.length > 0 ? <JobsTable jobs={jobs} busy={busy} onRequeue={requeue} /> : null}
      {done ? (
        <p role="status" data-testid="job-requeued">
          Job {done.job_id.slice(0, 8)}… of {done.subject_id} is {done.status} again: the next worker poll runs it.
        </p>
      ) : null}
      {actionError ? <ErrorView error={actionError} /> : null}
    </section>
  );
}

interface WebhookStats {
  pending: number;
  delivered: number;
  dead_letter: number;
  total: number;
  oldest_pending_age_seconds: number | null;
}

function Webhooks({ session }: { session: Session }) {
  const { data, error, reload } = useLoad(() => call<WebhookStats>(session, 'GET', withQuery('/admin/webhooks/stats', { tenant_id: session.tenant })), [session]);
  const [confirm, setConfirm] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  async function requeue() {
    setActionError(null);
    try {
      const r = await call<Record<string, unknown>>(session, 'POST', '/admin/webhooks/dead-letters/requeue', session.tenant ? { tenant_id: session.tenant } : {});
      setResult(JSON.stringify(r));
      setConfirm(false);
      reload();
    } catch (e) {
      setActionError(e);
    }
  }
  return (
    <section aria-label="Webhooks">
      <h2>Webhook deliveries</h2>
      {error ? <ErrorView error={error} /> : null}
      {!data && !error ? <Loading what="webhook counts" /> : null}
      {data ? (
        <>
          <dl class="stats">
            <dt>pending</dt>
            <dd>{data.pending}</dd>
            <dt>delivered (kept)</dt>
            <dd>{data.delivered}</dd>
            <dt>dead letters</dt>
            <dd data-testid="dead-letters">{data.dead_letter}</dd>
            <dt>oldest pending</dt>
            <dd>{data.oldest_pending_age_seconds === null ? '—' : `${Math.round(data.oldest_pending_age_seconds)} s`}</dd>
          </dl>
          <button type="button" disabled={data.dead_letter === 0} onClick={() => setConfirm(true)}>
            Requeue dead letters…
          </button>
          {confirm ? (
            <div class="confirm" role="alertdialog" aria-label="Confirm requeue">
              <p>Put {data.dead_letter} dead letters back in the queue with their attempts reset?</p>
              <button type="button" onClick={requeue}>
                Requeue
              </button>{' '}
              <button type="button" onClick={() => setConfirm(false)}>
                Cancel
              </button>
            </div>
          ) : null}
          {result ? <p class="muted">Requeued: {result}</p> : null}
          {actionError ? <ErrorView error={actionError} /> : null}
        </>
      ) : null}
      <WebhookEventLookup session={session} />
    </section>
  );
}

/**
 * One event by id (a receiver gets it as `X-Webhook-Event-Id`; the service log names it): the
 * service lists no events, so it is typed. Every tenant's event is found (the operator route has
 * no tenant filter); an unknown id shows the 404 envelope.
 */
function WebhookEventLookup({ session }: { session: Session }) {
  const [id, setId] = useState('');
  const [event, setEvent] = useState<WebhookEvent | null>(null);
  const [error, setError] = useState<unknown>(null);
  async function open(e: Event) {
    e.preventDefault();
    setError(null);
    setEvent(null);
    try {
      setEvent(await call<WebhookEvent>(session, 'GET', `/admin/webhooks/${encodeURIComponent(id.trim())}`));
    } catch (err) {
      setError(err);
    }
  }
  return (
    <>
      <form class="toolbar" onSubmit={open} aria-label="Open a webhook event">
        <label>
          Event id
          <input name="webhook-event-id" value={id} onInput={(e) => setId(e.currentTarget.value)} placeholder="X-Webhook-Event-Id" spellcheck={false} />
        </label>
        <button type="submit" disabled={id.trim() === ''}>
          Open event
        </button>
      </form>
      {error ? <ErrorView error={error} /> : null}
      {event ? <WebhookEventView event={event} /> : null}
    </>
  );
}

interface PolicyBundle {
  yaml: string;
  mode: string;
  policy_bundle_hash: string;
  updated_at: string;
}

const POLICY_TEMPLATE = 'version: 1\nmode: log_only\nrules:\n  - id: medical-only-for-clinicians\n    deny_labels: [health]\n    unless_caller_types: [clinician]\n';

function Policy({ session }: { session: Session }) {
  const { data, error } = useLoad(
    () =>
      call<PolicyBundle>(session, 'GET', withQuery('/admin/policy', { tenant_id: session.tenant })).catch((e: unknown) => {
        // No bundle yet is a 404: start from a template instead of an error.
        if (e && typeof e === 'object' && 'status' in e && (e as { status: number }).status === 404) return null;
        throw e;
      }),
    [session],
  );
  const [yaml, setYaml] = useState<string | null>(null);
  const [saved, setSaved] = useState<PolicyBundle | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const text = yaml ?? data?.yaml ?? POLICY_TEMPLATE;
  async function save(e: Event) {
    e.preventDefault();
    setSaveError(null);
    try {
      setSaved(await call<PolicyBundle>(session, 'PUT', withQuery('/admin/policy', { tenant_id: session.tenant }), { yaml: text }));
    } catch (err) {
      setSaveError(err);
    }
  }
  return (
    <section aria-label="Policy bundle">
      <h2>Policy bundle</h2>
      {error ? <ErrorView error={error} /> : null}
      <p class="muted">{data ? `In force: mode ${data.mode}, hash ${data.policy_bundle_hash.slice(0, 12)}…, updated ${formatTime(data.updated_at)}.` : 'No bundle in force: the template below is not saved.'}</p>
      <form onSubmit={save}>
        <label>
          YAML
          <textarea name="policy" rows={10} class="code" value={text} onInput={(e) => setYaml(e.currentTarget.value)} spellcheck={false} />
        </label>
        <button type="submit">Save policy</button>
      </form>
      {saved ? (
        <p role="status" data-testid="policy-saved">
          Saved: hash {saved.policy_bundle_hash.slice(0, 12)}…
        </p>
      ) : null}
      {saveError ? <ErrorView error={saveError} /> : null}
    </section>
  );
}
