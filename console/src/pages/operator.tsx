import { useEffect, useRef, useState } from 'preact/hooks';
import { api, tenantQuery } from '../api.js';
import type { JobStatus, PolicyBundle, Session, WebhookStatus } from '../api.js';
import { Empty, ErrorView, Loading } from '../components/error-view.js';
import { JobsTable } from '../components/jobs-table.js';
import { WebhookEventView } from '../components/webhook-event.js';
import type { WebhookEvent } from '../components/webhook-event.js';
import { WEBHOOK_STATUS_FILTERS, WebhookEventsTable } from '../components/webhook-events-table.js';
import type { WebhookEventSummary } from '../components/webhook-events-table.js';
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
  const { data, error } = useLoad(() => api(session, (c) => c.listJobs({ status: (status || undefined) as JobStatus | undefined, ...tenantQuery(session), limit: 50 })), [session, status]);
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
      const now = await api(session, (c) => c.requeueJob(job.job_id, tenantQuery(session)));
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

/** What a confirmed requeue puts back: every dead letter (in the tenant filter), or the listed ones. */
interface RequeueAsk {
  ids: string[] | null;
  /** The question the confirmation asks. */
  question: string;
}

function Webhooks({ session }: { session: Session }) {
  const { data, error, reload } = useLoad(() => api(session, (c) => c.getWebhookStats(tenantQuery(session))), [session]);
  const [confirm, setConfirm] = useState<RequeueAsk | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [listTick, setListTick] = useState(0);
  // The event shown in the detail view, opened from the list or by a typed id.
  const [opened, setOpened] = useState<WebhookEvent | null>(null);
  const [openError, setOpenError] = useState<unknown>(null);
  async function open(id: string) {
    setOpenError(null);
    setOpened(null);
    try {
      setOpened(await api(session, (c) => c.getWebhookEvent(id)));
    } catch (err) {
      setOpenError(err);
    }
  }
  function ask(a: RequeueAsk) {
    // A result shown is of the previous requeue: gone once another is asked for.
    setResult(null);
    setConfirm(a);
  }
  async function requeue(a: RequeueAsk) {
    setActionError(null);
    try {
      const body: Record<string, unknown> = session.tenant ? { tenant_id: session.tenant } : {};
      if (a.ids) body.event_ids = a.ids;
      const r = await api(session, (c) => c.requeueWebhookDeadLetters(body));
      setResult(JSON.stringify(r));
      setConfirm(null);
      reload();
      // The requeued events are pending now: the list (and an opened one) would show them dead.
      setListTick((n) => n + 1);
      if (opened && (a.ids === null || a.ids.includes(opened.id))) void open(opened.id);
    } catch (e) {
      setActionError(e);
    }
  }
  return (
    <section aria-label="Webhooks">
      <h2>Webhook deliveries</h2>
      {/* Deliveries go on in the background: the counts and the list are as of their last read. */}
      <button
        type="button"
        onClick={() => {
          reload();
          setListTick((n) => n + 1);
        }}
      >
        Refresh
      </button>
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
          <button type="button" disabled={data.dead_letter === 0} onClick={() => ask({ ids: null, question: `Put ${data.dead_letter} dead letters back in the queue with their attempts reset?` })}>
            Requeue dead letters…
          </button>
        </>
      ) : null}
      {confirm ? (
        <div class="confirm" role="alertdialog" aria-label="Confirm requeue">
          <p>{confirm.question}</p>
          <button type="button" onClick={() => requeue(confirm)}>
            Requeue
          </button>{' '}
          <button type="button" onClick={() => setConfirm(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      {result ? <p class="muted">Requeued: {result}</p> : null}
      {actionError ? <ErrorView error={actionError} /> : null}
      <WebhookEventList session={session} tick={listTick} opened={opened?.id ?? null} onOpen={(e) => open(e.id)} onRequeue={(e) => ask({ ids: [e.id], question: `Put dead letter ${e.id.slice(0, 8)}… (${e.event}) back in the queue with its attempts reset?` })} />
      <WebhookEventLookup onOpen={open} />
      {openError ? <ErrorView error={openError} /> : null}
      {opened ? <WebhookEventView event={opened} /> : null}
    </section>
  );
}

/**
 * GET /admin/webhooks, newest first, one page at a time: More fetches the page after the last
 * shown (its `next_cursor`) and adds it below; a new filter starts over.
 */
function WebhookEventList({
  session,
  tick,
  opened,
  onOpen,
  onRequeue,
}: {
  session: Session;
  tick: number;
  opened: string | null;
  onOpen: (e: WebhookEventSummary) => void;
  onRequeue: (e: WebhookEventSummary) => void;
}) {
  const [status, setStatus] = useState<string>(WEBHOOK_STATUS_FILTERS[0]?.value ?? '');
  const [events, setEvents] = useState<WebhookEventSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The answer of the newest request only: a slow page of an older filter must not land in this one.
  const generation = useRef(0);
  async function load(after: string | null) {
    const mine = after === null ? ++generation.current : generation.current;
    setLoading(true);
    setError(null);
    try {
      const page = await api(session, (c) => c.listWebhookEvents({ status: (status || undefined) as WebhookStatus | undefined, ...tenantQuery(session), limit: WEBHOOK_PAGE, cursor: after ?? undefined }));
      if (mine !== generation.current) return;
      setEvents((shown) => (after === null || shown === null ? page.events : [...shown, ...page.events]));
      setCursor(page.next_cursor);
    } catch (e) {
      if (mine === generation.current) setError(e);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }
  useEffect(() => {
    setEvents(null);
    setCursor(null);
    void load(null);
  }, [session, status, tick]);
  const label = WEBHOOK_STATUS_FILTERS.find((f) => f.value === status)?.label ?? status;
  return (
    <section aria-label="Webhook events">
      <h3>Events</h3>
      <label>
        Status
        <select name="webhook-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          {WEBHOOK_STATUS_FILTERS.map((f) => (
            <option value={f.value} key={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      {error ? <ErrorView error={error} /> : null}
      {events === null && !error ? <Loading what="webhook events" /> : null}
      {events && events.length === 0 ? <Empty>No webhook event{status ? ` among the ${label}` : ''}.</Empty> : null}
      {events && events.length > 0 ? <WebhookEventsTable events={events} opened={opened} onOpen={onOpen} onRequeue={onRequeue} /> : null}
      {events && cursor ? (
        <button type="button" disabled={loading} onClick={() => load(cursor)}>
          More
        </button>
      ) : null}
    </section>
  );
}

/** Events per page of the list: a screenful; More brings the next. */
const WEBHOOK_PAGE = 20;

/**
 * One event by id (a receiver gets it as `X-Webhook-Event-Id`; the service log names it). Every
 * tenant's event is found (the operator route has no tenant filter); an unknown id shows the 404
 * envelope.
 */
function WebhookEventLookup({ onOpen }: { onOpen: (id: string) => void }) {
  const [id, setId] = useState('');
  function submit(e: Event) {
    e.preventDefault();
    onOpen(id.trim());
  }
  return (
    <form class="toolbar" onSubmit={submit} aria-label="Open a webhook event">
      <label>
        Event id
        <input name="webhook-event-id" value={id} onInput={(e) => setId(e.currentTarget.value)} placeholder="X-Webhook-Event-Id" spellcheck={false} />
      </label>
      <button type="submit" disabled={id.trim() === ''}>
        Open event
      </button>
    </form>
  );
}

const POLICY_TEMPLATE = 'version: 1\nmode: log_only\nrules:\n  - id: medical-only-for-clinicians\n    deny_labels: [health]\n    unless_caller_types: [clinician]\n';

function Policy({ session }: { session: Session }) {
  const { data, error } = useLoad(
    () =>
      api(session, (c) => c.getPolicy(tenantQuery(session))).catch((e: unknown) => {
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
      setSaved(await api(session, (c) => c.putPolicy({ yaml: text }, tenantQuery(session))));
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
