import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { HandoffPack, Session, SubjectHealth as Health, SubjectSla as Sla } from '../api.js';
import { Empty, ErrorView, Loading } from '../components/error-view.js';
import { HealthTrend } from '../components/health-trend.js';
import type { HealthPoint } from '../components/health-trend.js';

const secs = (n: number | null) => (n === null ? '—' : n < 120 ? `${Math.round(n)} s` : `${Math.round(n / 60)} min`);

/** A subject's support picture: health with its factors and trend, SLA per session, and the handoff pack on demand. */
export function SupportPanel({ session, subjectId, sessions }: { session: Session; subjectId: string; sessions: string[] }) {
  const [handoffSession, setHandoffSession] = useState('');
  const chosen = handoffSession || sessions[sessions.length - 1] || '';
  const id = subjectId;
  const [health, setHealth] = useState<Health | null>(null);
  const [sla, setSla] = useState<Sla | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [trend, setTrend] = useState<HealthPoint[] | null>(null);
  const [trendError, setTrendError] = useState<unknown>(null);
  const [handoff, setHandoff] = useState<HandoffPack | null>(null);
  const [handoffError, setHandoffError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    Promise.all([api(session, (c) => c.getSubjectHealth(id)), api(session, (c) => c.getSubjectSla(id))])
      .then(([h, s]) => {
        if (!live) return;
        setHealth(h);
        setSla(s);
        // After the health read: it recomputes, and a change it finds is the trend's newest point.
        return api(session, (c) => c.getSubjectHealthHistory(id)).then(
          (r) => live && setTrend(r.points),
          (e) => live && setTrendError(e),
        );
      })
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [session, id]);

  async function prepare() {
    setHandoffError(null);
    try {
      setHandoff(await api(session, (c) => c.createHandoff({ subject_id: subjectId, session_id: chosen, reason: 'prepared in the console', max_tokens: 2000 })));
    } catch (e) {
      setHandoffError(e);
    }
  }

  return (
    <section aria-label="Support">
      <h2>Support</h2>
      {error ? <ErrorView error={error} /> : null}
      {!health && !error ? <Loading what="health and SLA" /> : null}
      {health ? (
        <p>
          Health <strong data-testid="health-score">{health.score}</strong> ({health.state})
          {health.factors.length ? ': ' + health.factors.map((f) => `${f.signal} ${f.impact > 0 ? '+' : ''}${f.impact}`).join(', ') : ''}
        </p>
      ) : null}
      {health && !trend && !trendError ? <Loading what="health trend" /> : null}
      {trendError ? <ErrorView error={trendError} /> : null}
      {trend ? <HealthTrend points={trend} /> : null}
      {sla && sla.sessions.length === 0 ? <Empty>No support session yet.</Empty> : null}
      {sla && sla.sessions.length > 0 ? (
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">First response</th>
              <th scope="col" class="num">Resolution</th>
            </tr>
          </thead>
          <tbody>
            {sla.sessions.map((s) => (
              <tr key={s.session_id}>
                <td>{s.session_id}</td>
                <td>{s.status}</td>
                <td class="num">
                  {secs(s.first_response_seconds)}
                  {s.first_response_breached ? ' (breached)' : ''}
                </td>
                <td class="num">
                  {secs(s.resolution_seconds)}
                  {s.resolution_breached ? ' (breached)' : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <div class="toolbar">
        <label>
          Handoff session
          <select name="handoff-session" value={chosen} onChange={(e) => setHandoffSession(e.currentTarget.value)}>
            {sessions.map((s) => (
              <option value={s} key={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={prepare} disabled={!chosen}>
          Prepare handoff
        </button>
      </div>
      {handoffError ? <ErrorView error={handoffError} /> : null}
      {handoff ? (
        <pre class="bundle" data-testid="handoff">
          {handoff.handoff_notes}
        </pre>
      ) : null}
    </section>
  );
}
