/**
 * What a workload was told by the service. Every operation gets a global sequence number when
 * it starts; it is `acked` when a 2xx arrived, `failed` on a 4xx/5xx answer, and `unknown` when
 * the connection broke (the process died mid-request). Each client loop works on subjects of its
 * own and one request at a time, so the order of operations on a subject is the seq order.
 */
export type OpKind = 'ingest' | 'batch' | 'compile' | 'compile_async' | 'resolution' | 'delete' | 'health';

export interface Op {
  seq: number;
  kind: OpKind;
  subject: string;
  tenant: string | null;
  state: 'pending' | 'acked' | 'failed' | 'unknown';
  /** Batch marker (episodes carry it in metadata.batch) and size. */
  batch?: { marker: string; size: number };
  /** From the answer: episode ids, memory ids, job id, resolution id. */
  episodeIds?: string[];
  memoryIds?: string[];
  jobId?: string;
  resolutionId?: string;
  status?: number;
  error?: string;
}

export class Ledger {
  readonly ops: Op[] = [];
  private seq = 0;

  start(kind: OpKind, subject: string, tenant: string | null, extra: Partial<Op> = {}): Op {
    const op: Op = { seq: ++this.seq, kind, subject, tenant, state: 'pending', ...extra };
    this.ops.push(op);
    return op;
  }

  /** Operations still pending when the process died become `unknown`. */
  settle(): void {
    for (const op of this.ops) if (op.state === 'pending') op.state = 'unknown';
  }

  counts(): Record<string, number> {
    const c: Record<string, number> = {};
    for (const op of this.ops) c[`${op.kind}:${op.state}`] = (c[`${op.kind}:${op.state}`] ?? 0) + 1;
    return c;
  }

  /**
   * How a later delete affects what `op` wrote: 'gone' (an acknowledged delete of the subject
   * came after it), 'maybe' (a delete with unknown outcome came after it, none acknowledged),
   * or 'kept'.
   */
  fate(op: Op): 'kept' | 'gone' | 'maybe' {
    let maybe = false;
    for (const d of this.ops) {
      if (d.kind !== 'delete' || d.subject !== op.subject || d.tenant !== op.tenant || d.seq <= op.seq) continue;
      if (d.state === 'acked') return 'gone';
      if (d.state === 'unknown') maybe = true;
    }
    return maybe ? 'maybe' : 'kept';
  }
}
