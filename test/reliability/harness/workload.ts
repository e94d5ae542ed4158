import { randomUUID } from 'node:crypto';
import { Ledger, Op, OpKind } from './ledger';
import { between, pick } from './settings';

const FACTS = [
  'My name is Juno Marsh.',
  'I prefer email over phone.',
  'I prefer phone calls now.',
  'I live in Lisbon.',
  'My favorite color is green.',
  'To reset the router, hold the button for 10 seconds.',
  'Production is down, urgent!',
  'Thanks, that fixed it.',
];

export function conversation(r: () => number, subject: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const n = between(r, 1, 3);
  const messages = Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${pick(r, FACTS)} (${randomUUID().slice(0, 8)})` }));
  return { subject_id: subject, source: pick(r, ['user', 'support-chat', 'agent']), type: 'conversation', session_id: `sess-${between(r, 1, 3)}`, payload: { messages }, ...extra };
}

export interface WorkloadTarget {
  /** Next base URL to send to (round-robin across replicas, or the one service). */
  base(): string;
  headers(tenant: string | null): Record<string, string>;
}

const WEIGHTS: [OpKind, number][] = [
  ['ingest', 30],
  ['batch', 18],
  ['compile', 15],
  ['compile_async', 10],
  ['resolution', 15],
  ['delete', 5],
  ['health', 7],
];

function chooseKind(r: () => number): OpKind {
  const total = WEIGHTS.reduce((s, [, w]) => s + w, 0);
  let x = r() * total;
  for (const [k, w] of WEIGHTS) {
    x -= w;
    if (x < 0) return k;
  }
  return 'ingest';
}

/**
 * One client loop: sequential requests on its own subjects until `stop()` says so or the
 * service stops answering. Every request is recorded in the ledger with its outcome.
 */
export async function clientLoop(opts: {
  ledger: Ledger;
  target: WorkloadTarget;
  r: () => number;
  subjects: string[];
  tenant: string | null;
  stop: () => boolean;
  maxOps: number;
  timeoutMs?: number;
}): Promise<void> {
  const { ledger, target, r, subjects, tenant } = opts;
  for (let i = 0; i < opts.maxOps && !opts.stop(); i++) {
    const subject = pick(r, subjects);
    const kind = chooseKind(r);
    let op: Op;
    let path: string;
    let method = 'POST';
    let body: unknown;
    switch (kind) {
      case 'ingest':
        op = ledger.start(kind, subject, tenant);
        path = '/v1/episodes';
        body = conversation(r, subject, { metadata: { seq: op.seq } });
        break;
      case 'batch': {
        const size = between(r, 2, 8);
        const marker = randomUUID();
        op = ledger.start(kind, subject, tenant, { batch: { marker, size } });
        path = '/v1/episodes/batch';
        body = { episodes: Array.from({ length: size }, () => conversation(r, subject, { metadata: { batch: marker, batch_size: size, seq: op.seq } })) };
        break;
      }
      case 'compile':
        op = ledger.start(kind, subject, tenant);
        path = '/v1/memories/compile';
        body = { subject_id: subject };
        break;
      case 'compile_async':
        op = ledger.start(kind, subject, tenant);
        path = '/v1/memories/compile';
        body = { subject_id: subject, async: true };
        break;
      case 'resolution':
        op = ledger.start(kind, subject, tenant);
        path = '/v1/resolutions';
        body = { subject_id: subject, session_id: `res-${op.seq}`, status: pick(r, ['open', 'resolved', 'unresolved']), resolution_summary: `r${op.seq}` };
        break;
      case 'delete':
        op = ledger.start(kind, subject, tenant);
        method = 'DELETE';
        path = `/v1/subjects/${encodeURIComponent(subject)}`;
        break;
      default:
        op = ledger.start('health', subject, tenant);
        method = 'GET';
        path = `/v1/subjects/${encodeURIComponent(subject)}/health`;
    }
    let res: Response;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several routes
    let parsed: any;
    try {
      res = await fetch(`${target.base()}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...target.headers(tenant) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
      parsed = await res.json();
    } catch (err) {
      // The connection broke (or never opened): the outcome is unknown.
      op.state = 'unknown';
      op.error = (err as Error).message;
      return;
    }
    op.status = res.status;
    if (res.status >= 300) {
      op.state = 'failed';
      op.error = JSON.stringify(parsed).slice(0, 300);
      continue;
    }
    op.state = 'acked';
    if (kind === 'ingest') op.episodeIds = [parsed.id];
    if (kind === 'batch') op.episodeIds = parsed.episodes.map((e: { id: string }) => e.id);
    if (kind === 'compile') op.memoryIds = parsed.memories.map((m: { id: string }) => m.id);
    if (kind === 'compile_async') op.jobId = parsed.job_id;
    if (kind === 'resolution') op.resolutionId = parsed.id;
  }
}
