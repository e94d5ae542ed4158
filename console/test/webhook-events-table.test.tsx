import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { lastAnswer, WEBHOOK_STATUS_FILTERS, WebhookEventsTable } from '../src/components/webhook-events-table.js';
import type { WebhookEventSummary } from '../src/components/webhook-events-table.js';

const event = (over: Partial<WebhookEventSummary>): WebhookEventSummary => ({
  id: '9b7e51b4-3c1e-4f0a-8a51-0c7f5f2d8e11',
  tenant_id: null,
  event: 'episode.created',
  status: 'delivered',
  attempts: 1,
  last_error: null,
  last_status_code: 204,
  next_attempt_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  delivered_at: '2026-01-01T00:00:01.000Z',
  ...over,
});

describe('WebhookEventsTable', () => {
  const events = [
    event({ id: 'dead-1', status: 'dead_letter', last_status_code: 500, last_error: 'HTTP 500', tenant_id: 'acme', delivered_at: null }),
    event({ id: 'sent-1', event: 'memory.created' }),
    event({ id: 'wait-1', status: 'pending', attempts: 2, last_status_code: null, last_error: 'timed out after 5000 ms', next_attempt_at: '2026-01-01T00:01:00.000Z', delivered_at: null }),
  ];

  it('opens every row, and offers Requeue… on dead letters only, with the receiver’s last answer', () => {
    const html = render(<WebhookEventsTable events={events} opened={null} onOpen={() => undefined} onRequeue={() => undefined} />);
    const [dead = '', sent = '', wait = '', ...rest] = html.split('<tr').slice(2);
    assert.equal(rest.length, 0);
    assert.match(dead, /data-status="dead_letter" data-event-id="dead-1"/);
    assert.match(dead, /<td>acme<\/td><td>dead letter<\/td>/);
    assert.match(dead, /title="HTTP 500">HTTP 500</);
    assert.match(dead, /aria-label="Open event dead-1"/);
    assert.match(dead, /aria-label="Requeue event dead-1"[^>]*>Requeue…</);
    assert.match(sent, /<code>memory.created<\/code>/);
    assert.match(sent, /aria-label="Open event sent-1"/);
    assert.doesNotMatch(sent, /Requeue/);
    // No answer at all (a timeout) is told apart from an event not tried yet.
    assert.match(wait, /title="timed out after 5000 ms">none</);
    assert.doesNotMatch(wait, /Requeue/);
    assert.equal(lastAnswer({ last_status_code: null, attempts: 0 }), '—');
  });

  it('marks the row whose event the detail view shows', () => {
    const html = render(<WebhookEventsTable events={events} opened="sent-1" onOpen={() => undefined} onRequeue={() => undefined} />);
    assert.match(html, /data-event-id="sent-1" aria-current="true"/);
    assert.equal(html.match(/aria-current/g)?.length, 1);
  });

  it('filters dead letters first, then the other statuses the service lists, then all', () => {
    assert.deepEqual(
      WEBHOOK_STATUS_FILTERS.map((f) => f.value),
      ['dead_letter', 'pending', 'delivered', ''],
    );
  });
});
