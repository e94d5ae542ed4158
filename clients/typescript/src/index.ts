/**
 * Memory service client: a thin, typed surface over the HTTP API. Wire types come from the
 * service's openapi.json (generated into schema.d.ts by openapi-typescript); the methods, retries
 * and errors are written here. No runtime dependency beyond the platform's fetch.
 */
import type { components, operations } from './schema.js';

export type { components, operations, paths } from './schema.js';

type Schemas = components['schemas'];
export type Memory = Schemas['MemoryDto'];
export type Episode = Schemas['EpisodeDto'];
export type ContextBundle = Schemas['ContextBundleDto'];
export type CompileResult = Schemas['CompileResultDto'];
export type CompileJob = Schemas['CompileJobDto'];
export type ForgetResult = Schemas['ForgetMemoryResultDto'];
export type ReceiptVerdict = Schemas['ReceiptVerdictDto'];
export type Readiness = Schemas['ReadinessDto'];
export type MigrationsReport = Schemas['MigrationsReportDto'];

type JsonBody<O extends keyof operations> = operations[O] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Success<R> = R extends { 200: { content: { 'application/json': infer T } } }
  ? T
  : R extends { 201: { content: { 'application/json': infer T } } }
    ? T
    : unknown;
type Result<O extends keyof operations> = Success<operations[O]['responses']>;
type QueryOf<O extends keyof operations> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
/** For list routes whose paging parameters the service defaults (openapi marks them required). */
type PagedQuery<O extends keyof operations> = Partial<QueryOf<O>>;

export interface ClientOptions {
  /** e.g. `http://localhost:8100`. */
  baseUrl: string;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  /** Sent in the tenant header on every call (needed when the service requires tenants). */
  tenantId?: string;
  /** Default `X-Tenant-ID` (the service's SERVICE_TENANT_HEADER). */
  tenantHeader?: string;
  /** Retries after the first try, for retryable failures (below). Default 3. */
  maxRetries?: number;
  /** First backoff step in ms; doubles per retry up to `maxDelayMs`, with full jitter. Default 250. */
  baseDelayMs?: number;
  /** Longest wait between tries, Retry-After included. Default 30,000. */
  maxDelayMs?: number;
  /** Per-try timeout in ms. Default 30,000. */
  timeoutMs?: number;
  /** Another fetch (tests, proxies). Default the global one. */
  fetch?: typeof fetch;
  /** Uniform [0, 1) source for the jitter; injectable so tests are deterministic. */
  random?: () => number;
}

export interface CallOptions {
  /** Cancels the call, including waits between retries. */
  signal?: AbortSignal;
}

/** The service's error envelope as an exception: `code`, `details` and `requestId` as the service sent them. */
export class MemoryServiceError extends Error {
  override readonly name = 'MemoryServiceError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown,
    readonly requestId: string | null,
    /** From `Retry-After`, when the service sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** The request never got an answer (network failure or timeout) after every retry. */
export class MemoryServiceConnectionError extends Error {
  override readonly name = 'MemoryServiceConnectionError';
  constructor(message: string, override readonly cause: unknown) {
    super(message);
  }
}

/**
 * Retry policy. 429 and 503 are refusals before any work, so every call retries them; a lost
 * connection, a timeout, 502 or 504 may have done the work, so only idempotent calls retry those
 * (reads, compile, context, forget, and writes carrying an idempotency key).
 */
const ALWAYS_RETRY = new Set([429, 503]);
const RETRY_IF_IDEMPOTENT = new Set([408, 502, 504]);

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base · 2^attempt)]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  idempotent: boolean;
}

export class MemoryServiceClient {
  private readonly baseUrl: string;
  private readonly opts: Required<Omit<ClientOptions, 'apiKey' | 'tenantId' | 'baseUrl'>> & Pick<ClientOptions, 'apiKey' | 'tenantId'>;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.opts = {
      apiKey: options.apiKey,
      tenantId: options.tenantId,
      tenantHeader: options.tenantHeader ?? 'X-Tenant-ID',
      maxRetries: options.maxRetries ?? 3,
      baseDelayMs: options.baseDelayMs ?? 250,
      maxDelayMs: options.maxDelayMs ?? 30_000,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      random: options.random ?? Math.random,
    };
  }

  // Episodes

  /** Record one interaction. With `idempotency_key`, retries are safe and return the original episode. */
  createEpisode(body: JsonBody<'createEpisode'>, call?: CallOptions): Promise<Result<'createEpisode'>> {
    return this.request({ method: 'POST', path: '/v1/episodes', body, idempotent: body.idempotency_key !== undefined }, call);
  }

  createEpisodesBatch(body: JsonBody<'createEpisodesBatch'>, call?: CallOptions): Promise<Result<'createEpisodesBatch'>> {
    const idempotent = body.episodes.every((e) => e.idempotency_key !== undefined);
    return this.request({ method: 'POST', path: '/v1/episodes/batch', body, idempotent }, call);
  }

  // Memories

  /** Compile the subject's new episodes into memories (idempotent). */
  compileMemories(subjectId: string, call?: CallOptions): Promise<CompileResult> {
    return this.request({ method: 'POST', path: '/v1/memories/compile', body: { subject_id: subjectId }, idempotent: true }, call);
  }

  /** Start a background compile; poll it with getCompileJob. */
  compileMemoriesAsync(subjectId: string, call?: CallOptions): Promise<Schemas['CompileJobAcceptedDto']> {
    return this.request({ method: 'POST', path: '/v1/memories/compile', body: { subject_id: subjectId, async: true }, idempotent: true }, call);
  }

  getCompileJob(jobId: string, call?: CallOptions): Promise<CompileJob> {
    return this.request({ method: 'GET', path: `/v1/memories/compile/${encodeURIComponent(jobId)}`, idempotent: true }, call);
  }

  searchMemories(query: QueryOf<'searchMemories'>, call?: CallOptions): Promise<Result<'searchMemories'>> {
    return this.request({ method: 'GET', path: '/v1/memories/search', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  /** Remember one memory directly; it supersedes the active memory it restates. */
  remember(body: JsonBody<'createMemory'>, call?: CallOptions): Promise<Memory> {
    return this.request({ method: 'POST', path: '/v1/memories', body, idempotent: body.idempotency_key !== undefined }, call);
  }

  /** One memory in any status (active, superseded, tombstoned). */
  getMemory(id: string, call?: CallOptions): Promise<Memory> {
    return this.request({ method: 'GET', path: `/v1/memories/${encodeURIComponent(id)}`, idempotent: true }, call);
  }

  /** Store a corrected version superseding the memory; returns the new version. Not retried after a lost answer (a repeat would be a 409). */
  correctMemory(id: string, body: JsonBody<'correctMemory'>, call?: CallOptions): Promise<Memory> {
    return this.request({ method: 'PATCH', path: `/v1/memories/${encodeURIComponent(id)}`, body, idempotent: false }, call);
  }

  /** Erase the memory's content (and its earlier versions'), keeping a tombstone; `hard` removes the rows. */
  forgetMemory(id: string, options: { hard?: boolean } & CallOptions = {}): Promise<ForgetResult> {
    const { hard, ...call } = options;
    return this.request({ method: 'DELETE', path: `/v1/memories/${encodeURIComponent(id)}`, query: hard ? { hard: true } : undefined, idempotent: true }, call);
  }

  /** Replace the memory's sensitivity labels (a set: repeating it changes nothing). */
  setMemoryLabels(id: string, body: JsonBody<'setLabels'>, call?: CallOptions): Promise<Memory> {
    return this.request({ method: 'PATCH', path: `/v1/memories/${encodeURIComponent(id)}/labels`, body, idempotent: true }, call);
  }

  // Context and subjects

  /** A ranked, token-bounded markdown briefing for a task, with provenance. */
  getContext(body: JsonBody<'getContext'>, call?: CallOptions): Promise<ContextBundle> {
    return this.request({ method: 'POST', path: '/v1/context', body, idempotent: true }, call);
  }

  /** Every candidate's scores and why it was kept or dropped, for the same request as getContext; writes nothing. */
  explainContext(body: JsonBody<'explainContext'>, call?: CallOptions): Promise<Result<'explainContext'>> {
    return this.request({ method: 'POST', path: '/v1/context/explain', body, idempotent: true }, call);
  }

  listSubjects(query: QueryOf<'listSubjects'> = {}, call?: CallOptions): Promise<Result<'listSubjects'>> {
    return this.request({ method: 'GET', path: '/v1/subjects', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  getTimeline(query: QueryOf<'getTimeline'>, call?: CallOptions): Promise<Result<'getTimeline'>> {
    return this.request({ method: 'GET', path: '/v1/timeline', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  deleteSubject(subjectId: string, call?: CallOptions): Promise<Result<'deleteSubject'>> {
    return this.request({ method: 'DELETE', path: `/v1/subjects/${encodeURIComponent(subjectId)}`, idempotent: true }, call);
  }

  // Support

  upsertResolution(body: JsonBody<'upsertResolution'>, call?: CallOptions): Promise<Result<'upsertResolution'>> {
    return this.request({ method: 'POST', path: '/v1/resolutions', body, idempotent: true }, call);
  }

  getSubjectHealth(subjectId: string, call?: CallOptions): Promise<Result<'getSubjectHealth'>> {
    return this.request({ method: 'GET', path: `/v1/subjects/${encodeURIComponent(subjectId)}/health`, idempotent: true }, call);
  }

  createHandoff(body: JsonBody<'createHandoff'>, call?: CallOptions): Promise<Result<'createHandoff'>> {
    return this.request({ method: 'POST', path: '/v1/handoff', body, idempotent: true }, call);
  }

  getSubjectHealthHistory(subjectId: string, query: QueryOf<'healthHistory'> = {}, call?: CallOptions): Promise<Result<'healthHistory'>> {
    return this.request({ method: 'GET', path: `/v1/subjects/${encodeURIComponent(subjectId)}/health/history`, query: query as RequestSpec['query'], idempotent: true }, call);
  }

  getSubjectSla(subjectId: string, query: QueryOf<'getSubjectSla'> = {}, call?: CallOptions): Promise<Result<'getSubjectSla'>> {
    return this.request({ method: 'GET', path: `/v1/subjects/${encodeURIComponent(subjectId)}/sla`, query: query as RequestSpec['query'], idempotent: true }, call);
  }

  // Receipts

  listReceipts(query: PagedQuery<'list'> = {}, call?: CallOptions): Promise<Result<'list'>> {
    return this.request({ method: 'GET', path: '/v1/receipts', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  /** One context receipt: the request, what was selected and the signature. */
  getReceipt(receiptId: string, call?: CallOptions): Promise<Result<'getReceipts'>> {
    return this.request({ method: 'GET', path: `/v1/receipts/${encodeURIComponent(receiptId)}`, idempotent: true }, call);
  }

  /** Check the receipt's signature; an invalid one is a verdict (`valid: false`), not an error. */
  verifyReceipt(receiptId: string, call?: CallOptions): Promise<ReceiptVerdict> {
    return this.request({ method: 'GET', path: `/v1/receipts/${encodeURIComponent(receiptId)}/verify`, idempotent: true }, call);
  }

  /** Re-run the receipt's request as of a time; writes a new replay receipt, so it is not retried after a lost answer. */
  replayReceipt(receiptId: string, body: JsonBody<'replayReceipt'>, call?: CallOptions): Promise<Result<'replayReceipt'>> {
    return this.request({ method: 'POST', path: `/v1/receipts/${encodeURIComponent(receiptId)}/replay`, body, idempotent: false }, call);
  }

  // Operator (admin key; `tenant_id` narrows to one tenant)

  listJobs(query: PagedQuery<'listJobs'> = {}, call?: CallOptions): Promise<Result<'listJobs'>> {
    return this.request({ method: 'GET', path: '/admin/jobs', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  /** Put a failed or dead job back in the queue; a second requeue of the same job is a 409, so it is not retried. */
  requeueJob(jobId: string, query: QueryOf<'requeueJob'> = {}, call?: CallOptions): Promise<Result<'requeueJob'>> {
    return this.request({ method: 'POST', path: `/admin/jobs/${encodeURIComponent(jobId)}/requeue`, query: query as RequestSpec['query'], idempotent: false }, call);
  }

  listWebhookEvents(query: PagedQuery<'listWebhookEvents'> = {}, call?: CallOptions): Promise<Result<'listWebhookEvents'>> {
    return this.request({ method: 'GET', path: '/admin/webhooks', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  getWebhookEvent(eventId: string, call?: CallOptions): Promise<Result<'getWebhookEvent'>> {
    return this.request({ method: 'GET', path: `/admin/webhooks/${encodeURIComponent(eventId)}`, idempotent: true }, call);
  }

  getWebhookStats(query: QueryOf<'getWebhookStats'> = {}, call?: CallOptions): Promise<Result<'getWebhookStats'>> {
    return this.request({ method: 'GET', path: '/admin/webhooks/stats', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  /** Move dead-lettered webhook events back to pending; requeueing them twice finds none the second time. */
  requeueWebhookDeadLetters(body: JsonBody<'requeueWebhookDeadLetters'>, call?: CallOptions): Promise<Result<'requeueWebhookDeadLetters'>> {
    return this.request({ method: 'POST', path: '/admin/webhooks/dead-letters/requeue', body, idempotent: true }, call);
  }

  getPolicy(query: QueryOf<'get'> = {}, call?: CallOptions): Promise<Result<'get'>> {
    return this.request({ method: 'GET', path: '/admin/policy', query: query as RequestSpec['query'], idempotent: true }, call);
  }

  /** Replace the policy bundle with the YAML given (a whole replacement, so repeating it is safe). */
  putPolicy(body: JsonBody<'put'>, query: QueryOf<'put'> = {}, call?: CallOptions): Promise<Result<'put'>> {
    return this.request({ method: 'PUT', path: '/admin/policy', query: query as RequestSpec['query'], body, idempotent: true }, call);
  }

  // Operations

  /** Readiness (public, no key needed); a not-ready service answers 503, which this raises as a MemoryServiceError. */
  getReadiness(call?: CallOptions): Promise<Readiness> {
    return this.request({ method: 'GET', path: '/readyz', idempotent: true }, call);
  }

  /** Applied against expected migrations (operator key). */
  getMigrationStatus(call?: CallOptions): Promise<MigrationsReport> {
    return this.request({ method: 'GET', path: '/ops/migrations', idempotent: true }, call);
  }

  private async request<T>(spec: RequestSpec, call: CallOptions = {}): Promise<T> {
    const url = new URL(this.baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (this.opts.apiKey !== undefined) headers['x-api-key'] = this.opts.apiKey;
    if (this.opts.tenantId !== undefined) headers[this.opts.tenantHeader] = this.opts.tenantId;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);

    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.opts.maxRetries;
      const signal = call.signal ? AbortSignal.any([call.signal, AbortSignal.timeout(this.opts.timeoutMs)]) : AbortSignal.timeout(this.opts.timeoutMs);
      let res: Response;
      try {
        res = await this.opts.fetch(url, { method: spec.method, headers, body, signal });
      } catch (err) {
        if (call.signal?.aborted) throw call.signal.reason;
        if (last || !spec.idempotent) throw new MemoryServiceConnectionError(`${spec.method} ${spec.path} failed: ${(err as Error).message}`, err);
        await sleep(backoffMs(attempt, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random), call.signal);
        continue;
      }
      if (res.ok) return (await res.json()) as T;
      const error = await toError(res);
      const retryable = ALWAYS_RETRY.has(res.status) || (spec.idempotent && RETRY_IF_IDEMPOTENT.has(res.status));
      if (last || !retryable) throw error;
      const wait = error.retryAfterMs ?? backoffMs(attempt, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random);
      await sleep(Math.min(wait, this.opts.maxDelayMs), call.signal);
    }
  }
}

async function toError(res: Response): Promise<MemoryServiceError> {
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  const requestId = res.headers.get('x-request-id');
  let envelope: { error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown } } = {};
  try {
    envelope = (await res.json()) as typeof envelope;
  } catch {
    // Not JSON (a proxy's error page): the status says what happened.
  }
  const e = envelope.error ?? {};
  return new MemoryServiceError(
    res.status,
    typeof e.code === 'string' ? e.code : `http_${res.status}`,
    typeof e.message === 'string' ? e.message : `HTTP ${res.status}`,
    e.details ?? null,
    typeof e.request_id === 'string' ? e.request_id : requestId,
    retryAfterMs,
  );
}
