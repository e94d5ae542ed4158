/**
 * Webhook delivery rules (contract "Events": persistent delivery with exponential backoff, a
 * dead-letter queue and a timeout; retries, timings and signature are ours to choose):
 * - Backoff doubles from `baseMs` up to `maxMs` with equal jitter: half the step is fixed, half
 *   random. The fixed half keeps a struggling receiver from being hit again at once; the random
 *   half spreads the events that failed together.
 * - Retryable: timeouts, connection errors, 408, 425, 429 and 5xx — the receiver may accept the
 *   same body later. Any other answer (3xx, other 4xx) is dead-lettered at once: the receiver
 *   understood and refused, the same body will be refused again, and an operator redrive
 *   re-sends it after the receiver is fixed.
 * - Signature: hex HMAC-SHA256 with the shared secret over `${timestamp}.${body}`, where body
 *   is the exact request body text; binding the timestamp lets receivers refuse replays.
 * - Tenant: every body carries `data.tenant_id` (null without tenants), so one receiver can
 *   serve many tenants; the `X-Webhook-Tenant-Id` header repeats it for routing before parsing.
 *   The header is signed through the body: a receiver accepts it only when the signature
 *   verifies and it equals `data.tenant_id` (docs/operations.md "Security model" has the code).
 */
import { createHmac } from 'node:crypto';

export type WebhookEventName =
  | 'episode.created'
  | 'episodes.batch_created'
  | 'memories.compiled'
  | 'memory.created'
  | 'memory.updated'
  | 'memory.deleted'
  | 'subject.deleted'
  | 'receipt.created'
  | 'policy.updated'
  | 'subject.health_degraded'
  | 'subject.health_improved';

export interface WebhookBody<D extends object = Record<string, unknown>> {
  event: WebhookEventName;
  timestamp: string;
  data: D & { tenant_id: string | null };
}

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** Uniform in [0, 1); injected so tests and replays are deterministic. */
  random: () => number;
}

export interface RetryPolicy extends BackoffPolicy {
  maxAttempts: number;
}

/**
 * The contract's body shape: `{event, timestamp, data}`, with the event's tenant as
 * `data.tenant_id`. The tenant always comes from the event row, never from the data passed in.
 */
export function buildEventBody<D extends object>(event: WebhookEventName, data: D, timestamp: string, tenantId: string | null): WebhookBody<D> {
  return { event, timestamp, data: { ...data, tenant_id: tenantId } };
}

/**
 * The body as sent for a stored event row. The row's tenant_id column is the authority for
 * `data.tenant_id` (rows queued before it was stamped into the payload get it too).
 */
export function eventBodyOf(row: { tenant_id: string | null; payload: { event: string; timestamp: string; data: Record<string, unknown> } }): WebhookBody {
  return buildEventBody(row.payload.event as WebhookEventName, row.payload.data, row.payload.timestamp, row.tenant_id);
}

/** Header naming the event's tenant (absent for events without one). */
export const TENANT_HEADER = 'X-Webhook-Tenant-Id';

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/**
 * What an operator must hear at start-up about the webhook setup: unsigned deliveries (a
 * receiver cannot tell ours from a forger's) and plain http beyond this machine (bodies carry
 * customer data, readable and alterable on the way). Names the host only: a URL may carry a
 * token in its path or query.
 */
export function webhookSetupWarnings(url: string, secret: string): string[] {
  if (url === '') return [];
  const warnings: string[] = [];
  if (secret === '') {
    warnings.push('webhook deliveries are unsigned: set SERVICE_WEBHOOK_SECRET so receivers can verify X-Webhook-Signature');
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed !== null && parsed.protocol === 'http:' && !LOOPBACK_HOSTS.test(parsed.hostname)) {
    warnings.push(`webhook deliveries go over plain http to ${parsed.hostname}: event data and signatures travel unencrypted; use an https:// SERVICE_WEBHOOK_URL`);
  }
  return warnings;
}

export function signPayload(secret: string, timestamp: string | number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** Delay before the next try, after `attempt` failed attempts (1 = the first one failed). */
export function nextAttemptDelayMs(attempt: number, { baseMs, maxMs, random }: BackoffPolicy): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  // 2 ** large is Infinity, which the cap absorbs.
  const step = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.floor(step / 2 + random() * (step / 2));
}

export function isDead(attempts: number, maxAttempts: number): boolean {
  return attempts >= maxAttempts;
}

export type DeliveryResult =
  | { kind: 'response'; status: number }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'connection_error'; message: string };

export type DeliveryClassification =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'retryable' | 'permanent'; statusCode: number | null; error: string };

const RETRYABLE_STATUSES = new Set([408, 425, 429]);

export function classifyDeliveryResult(result: DeliveryResult): DeliveryClassification {
  switch (result.kind) {
    case 'timeout':
      return { outcome: 'retryable', statusCode: null, error: `timed out after ${result.timeoutMs} ms` };
    case 'connection_error':
      return { outcome: 'retryable', statusCode: null, error: `connection error: ${result.message}` };
    case 'response': {
      const status = result.status;
      if (status >= 200 && status < 300) return { outcome: 'delivered', statusCode: status };
      const retryable = status >= 500 || RETRYABLE_STATUSES.has(status);
      return { outcome: retryable ? 'retryable' : 'permanent', statusCode: status, error: `HTTP ${status}` };
    }
  }
}

export type NextDeliveryStep =
  | { status: 'delivered'; statusCode: number }
  | { status: 'dead_letter'; statusCode: number | null; error: string }
  | { status: 'pending'; statusCode: number | null; error: string; delayMs: number };

/** What the event row becomes after its `attempts`-th try (counting this one). */
export function nextDeliveryStep(result: DeliveryResult, attempts: number, policy: RetryPolicy): NextDeliveryStep {
  const c = classifyDeliveryResult(result);
  if (c.outcome === 'delivered') return { status: 'delivered', statusCode: c.statusCode };
  if (c.outcome === 'permanent' || isDead(attempts, policy.maxAttempts)) {
    return { status: 'dead_letter', statusCode: c.statusCode, error: c.error };
  }
  return { status: 'pending', statusCode: c.statusCode, error: c.error, delayMs: nextAttemptDelayMs(attempts, policy) };
}
