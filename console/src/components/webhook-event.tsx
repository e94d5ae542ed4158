import { formatTime } from './timeline-row.js';

/** GET /admin/webhooks/{event_id}: one outbox event and its delivery state. */
export interface WebhookEvent {
  id: string;
  tenant_id: string | null;
  event: string;
  status: 'pending' | 'delivered' | 'dead_letter';
  attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  payload: { event: string; timestamp: string; data: Record<string, unknown> };
}

const STATUS_TONE: Record<WebhookEvent['status'], string> = { delivered: 'ok', pending: '', dead_letter: 'bad' };

/** One event: where its delivery stands, the receiver's last answer, and the body it is sent. */
export function WebhookEventView({ event }: { event: WebhookEvent }) {
  return (
    <section aria-label="Webhook event" data-testid="webhook-event">
      <h3>
        <code>{event.event}</code> <span class={`pill ${STATUS_TONE[event.status]}`} data-testid="webhook-event-status">{event.status.replace('_', ' ')}</span>
      </h3>
      <dl class="stats">
        <dt>event id</dt>
        <dd>
          <code>{event.id}</code>
        </dd>
        <dt>tenant</dt>
        <dd>{event.tenant_id ?? '—'}</dd>
        <dt>attempts</dt>
        <dd>{event.attempts}</dd>
        <dt>last answer</dt>
        <dd data-testid="webhook-last-answer">
          {event.last_status_code === null ? (event.attempts > 0 ? 'none (timeout or connection error)' : '—') : `HTTP ${event.last_status_code}`}
        </dd>
        <dt>last error</dt>
        <dd>{event.last_error ?? '—'}</dd>
        <dt>next attempt</dt>
        <dd>{event.next_attempt_at ? formatTime(event.next_attempt_at) : '—'}</dd>
        <dt>created</dt>
        <dd>{formatTime(event.created_at)}</dd>
        <dt>delivered</dt>
        <dd>{event.delivered_at ? formatTime(event.delivered_at) : '—'}</dd>
      </dl>
      <h4>Body sent to the receiver</h4>
      <pre class="details">{JSON.stringify(event.payload, null, 2)}</pre>
    </section>
  );
}
