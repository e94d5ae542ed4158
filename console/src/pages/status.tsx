import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../api.js';
import { ErrorView, Loading } from '../components/error-view.js';

/** GET /readyz as the service answers it (docs/api.md; public, no key needed). */
export interface Readiness {
  status: string;
  engine: string;
  vector: string;
  auth: string;
  checks: {
    database: string;
    stuck_compile_jobs: number;
    replicas?: { name: string; state: string; lag_seconds: number | null }[];
  };
}

/** GET /ops/migrations (operator key). */
export interface MigrationsReport {
  current_revision: string | null;
  expected_head: string;
  is_compatible: boolean;
  pending_count: number;
  pending_revisions: string[];
  error: string | null;
  summary: string;
}

const tone = (ok: boolean): string => `pill ${ok ? 'ok' : 'bad'}`;

export function ReadinessView({ ready }: { ready: Readiness }) {
  return (
    <section aria-label="Readiness" data-testid="readiness">
      <h2>
        Readiness <span class={tone(ready.status === 'ready')} data-testid="readiness-status">{ready.status}</span>
      </h2>
      <dl class="stats">
        <dt>database</dt>
        <dd>{ready.checks.database}</dd>
        <dt>stuck compile jobs</dt>
        <dd>{ready.checks.stuck_compile_jobs}</dd>
        <dt>engine</dt>
        <dd>{ready.engine}</dd>
        <dt>vector search</dt>
        <dd>{ready.vector}</dd>
        <dt>authentication</dt>
        <dd>{ready.auth === 'open' ? 'open: anyone who reaches the port has full access' : ready.auth}</dd>
        {(ready.checks.replicas ?? []).flatMap((r) => [
          <dt key={`${r.name}-dt`}>{r.name}</dt>,
          <dd key={`${r.name}-dd`}>
            {r.state}
            {r.lag_seconds === null ? '' : ` · ${r.lag_seconds.toFixed(1)} s behind`}
          </dd>,
        ])}
      </dl>
      {ready.status === 'degraded' ? <p class="muted">Serving, but stuck compile jobs exist or a read replica is skipped (its reads go to the primary).</p> : null}
    </section>
  );
}

export function MigrationsView({ report }: { report: MigrationsReport }) {
  return (
    <section aria-label="Migrations" data-testid="migrations">
      <h2>
        Migrations <span class={tone(report.is_compatible && report.pending_count === 0)}>{report.is_compatible ? (report.pending_count === 0 ? 'up to date' : `${report.pending_count} pending`) : 'incompatible'}</span>
      </h2>
      <dl class="stats">
        <dt>current revision</dt>
        <dd data-testid="current-revision">{report.current_revision ?? '—'}</dd>
        <dt>expected head</dt>
        <dd>{report.expected_head}</dd>
      </dl>
      {report.pending_revisions.length > 0 ? (
        <>
          <h3>Pending</h3>
          <ul>
            {report.pending_revisions.map((r) => (
              <li key={r}>
                <code>{r}</code>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p>{report.summary}</p>
      {report.error ? <p class="error">{report.error}</p> : null}
    </section>
  );
}

/**
 * The service's own state: readiness (the probe load balancers read; a 503 shows its envelope)
 * and the schema's migrations (an operator key; a client key sees the 403).
 */
export function StatusPage({ session }: { session: Session }) {
  const [tick, setTick] = useState(0);
  const [ready, setReady] = useState<Readiness | null>(null);
  const [readyError, setReadyError] = useState<unknown>(null);
  const [migrations, setMigrations] = useState<MigrationsReport | null>(null);
  const [migrationsError, setMigrationsError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    setReady(null);
    setReadyError(null);
    setMigrations(null);
    setMigrationsError(null);
    api(session, (c) => c.getReadiness())
      .then((r) => live && setReady(r))
      .catch((e) => live && setReadyError(e));
    api(session, (c) => c.getMigrationStatus())
      .then((r) => live && setMigrations(r))
      .catch((e) => live && setMigrationsError(e));
    return () => {
      live = false;
    };
  }, [session, tick]);
  return (
    <main>
      <h1>Status</h1>
      <div class="toolbar">
        <button type="button" onClick={() => setTick((n) => n + 1)}>
          Refresh
        </button>
      </div>
      {readyError ? <ErrorView error={readyError} /> : null}
      {!ready && !readyError ? <Loading what="readiness" /> : null}
      {ready ? <ReadinessView ready={ready} /> : null}
      {migrationsError ? <ErrorView error={migrationsError} /> : null}
      {!migrations && !migrationsError ? <Loading what="migrations" /> : null}
      {migrations ? <MigrationsView report={migrations} /> : null}
    </main>
  );
}
