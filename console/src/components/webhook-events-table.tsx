import { formatTime } from './timeline-row.js';
import type { WebhookEvent } from './webhook-event.js';

/** An event as `GET /admin/webhooks` lists it: the detail view's fields without the payload. */
export type WebhookEventSummary = Omit<WebhookEvent, 'payload'>;

/** `GET /admin/webhooks`: one page, newest first. */
export interface WebhookEventPage {
  events: WebhookEventSummary[];
  next_cursor: string | null;
}

/**
 * The status filter's choices, dead letters first: they are what an operator comes here for
 * (the filter starts on them); '' lists every status.
 */
export const WEBHOOK_STATUS_FILTERS: readonly { value: '' | WebhookEvent['status']; label: string }[] = [
  { value: 'dead_letter', label: 'dead letters' },
  { value: 'pending', label: 'pending' },
  { value: 'delivered', label: 'delivered' },
  { value: '', label: 'all' },
];

/** The receiver's last answer in a few words, as the detail view puts it. */
export function lastAnswer(e: Pick<WebhookEventSummary, 'last_status_code' | 'attempts'>): string {
  if (e.last_status_code !== null) return `HTTP ${e.last_status_code}`;
  return e.attempts > 0 ? 'none' : '—';
}

/**
 * The listed events. Open shows an event in the detail view (with its body, which the listing
 * leaves out); only a dead letter gets Requeue…, which asks before anything is sent. `opened` is
 * the event shown, marked so the operator sees which row it is.
 */
export function WebhookEventsTable({
  events,
  opened,
  onOpen,
  onRequeue,
}: {
  events: readonly WebhookEventSummary[];
  opened: string | null;
  onOpen: (e: WebhookEventSummary) => void;
  onRequeue: (e: WebhookEventSummary) => void;
}) {
  return (
    <div class="scores-wrap">
      <table class="grid">
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Tenant</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id} data-status={e.status} data-event-id={e.id} aria-current={opened === e.id ? 'true' : undefined}>
              <td>{formatTime(e.created_at)}</td>
              <td>
                <code>{e.event}</code>
              </td>
              <td>{e.tenant_id ?? '—'}</td>
              <td>{e.status.replace('_', ' ')}</td>
              <td class="num">{e.attempts}</td>
              <td title={e.last_error ?? undefined}>{lastAnswer(e)}</td>
              <td>
                <button type="button" aria-label={`Open event ${e.id}`} onClick={() => onOpen(e)}>
                  Open
                </button>
                {e.status === 'dead_letter' ? (
                  <>
                    {' '}
                    <button type="button" aria-label={`Requeue event ${e.id}`} onClick={() => onRequeue(e)}>
                      Requeue…
                    </button>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
