import { SpanKind } from '@opentelemetry/api';
import { withSpan } from 'src/common/tracing/tracing';
import { metrics, secondsSince } from './metrics';

/**
 * One-line hooks for the background work other modules run: a span plus the matching metrics.
 * Only identifiers go into attributes (never payloads or subject ids, which may name people).
 */

/** A compile, synchronous (the endpoint) or a job (the worker). */
export async function observeCompile<T>(mode: 'sync' | 'async', jobId: string | null, fn: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  let status = 'completed';
  try {
    return await withSpan(mode === 'async' ? 'compile.job' : 'compile', { 'compile.mode': mode, ...(jobId ? { 'compile.job_id': jobId } : {}) }, () => fn());
  } catch (err) {
    // The worker's JobLostError: another process owns the job now; not a failure of the compile.
    status = (err as Error)?.constructor?.name === 'JobLostError' ? 'lost' : 'failed';
    throw err;
  } finally {
    metrics.compiles.inc({ mode, status });
    metrics.compileDuration.observe({ mode, status }, secondsSince(start));
  }
}

type PostResult = { kind: 'response'; status: number } | { kind: 'timeout' } | { kind: 'connection_error' } | null;

function resultLabel(result: PostResult): string {
  if (result === null) return 'aborted';
  if (result.kind === 'response') return `${Math.floor(result.status / 100)}xx`;
  return result.kind;
}

/** One webhook POST: a client span with the event id and the answer, and its duration by result. */
export async function observeWebhookPost<R extends PostResult>(row: { id: string; event: string; attempts: number }, post: () => Promise<R>): Promise<R> {
  const start = process.hrtime.bigint();
  const result = await withSpan(
    'webhook.deliver',
    { 'webhook.event_id': row.id, 'webhook.event': row.event, 'webhook.attempt': row.attempts + 1 },
    async (span) => {
      const r = await post();
      if (r?.kind === 'response') span?.setAttribute('http.response.status_code', r.status);
      else span?.setAttribute('webhook.result', resultLabel(r));
      return r;
    },
    SpanKind.CLIENT,
  );
  metrics.webhookDuration.observe({ result: resultLabel(result) }, secondsSince(start));
  return result;
}

/** What a delivery attempt did to the event: delivered, retry later, or dead-lettered. */
export function observeWebhookOutcome(status: 'delivered' | 'pending' | 'dead_letter'): void {
  metrics.webhookDeliveries.inc({ outcome: status === 'pending' ? 'retry' : status });
}

/** token_estimate of a context bundle. */
export function observeContextTokens(tokens: number): void {
  metrics.contextTokens.observe(tokens);
}
