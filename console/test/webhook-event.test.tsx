import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { WebhookEventView } from '../src/components/webhook-event.js';
import type { WebhookEvent } from '../src/components/webhook-event.js';

const event = (over: Partial<WebhookEvent> = {}): WebhookEvent => ({
  id: '9b7e51b4-3c1e-4f0a-8a51-0c7f5f2d8e11',
  tenant_id: null,
  event: 'episode.created',
  status: 'dead_letter',
  attempts: 8,
  last_error: 'receiver answered 500',
  last_status_code: 500,
  next_attempt_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  delivered_at: null,
  payload: { event: 'episode.created', timestamp: '2026-01-01T00:00:00.000Z', data: { subject_id: 'juno' } },
  ...over,
});

describe('WebhookEventView', () => {
  it('shows a dead letter with the receiver’s last answer, its error and the body it is sent', () => {
    const html = render(<WebhookEventView event={event()} />);
    assert.match(html, /<code>episode.created<\/code> <span class="pill bad" data-testid="webhook-event-status">dead letter<\/span>/);
    assert.match(html, /<dt>attempts<\/dt><dd>8<\/dd>/);
    assert.match(html, /HTTP 500/);
    assert.match(html, /receiver answered 500/);
    assert.match(html, /&quot;subject_id&quot;: &quot;juno&quot;/);
  });

  it('tells a missing answer (timeout) from one not tried yet', () => {
    assert.match(render(<WebhookEventView event={event({ status: 'pending', last_status_code: null, attempts: 2, next_attempt_at: '2026-01-01T00:01:00.000Z' })} />), /none \(timeout or connection error\)/);
    const fresh = render(<WebhookEventView event={event({ status: 'pending', last_status_code: null, attempts: 0, last_error: null })} />);
    assert.match(fresh, /data-testid="webhook-last-answer">—</);
    assert.match(render(<WebhookEventView event={event({ status: 'delivered', last_status_code: 204, delivered_at: '2026-01-01T00:00:01.000Z' })} />), /pill ok[^>]*>delivered<[\s\S]*HTTP 204/);
  });
});
