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

type JsonBody<O extends keyof operations> = operations[O] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Success<R> = R extends { 200: { content: { 'application/json': infer T } } }
  ? T
  : R extends { 201: { content: { 'application/json': infer T } } }
    ? T
    : unknown;
type Result<O extends keyof operations> = Success<operations[O]['responses']>;
type QueryOf<O extends keyof operations> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

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
  constructor(message: string, readonly cause: unknown) {
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
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
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

  // Context and subjects

  /** A ranked, token-bounded markdown briefing for a task, with provenance. */
  getContext(body: JsonBody<'getContext'>, call?: CallOptions): Promise<ContextBundle> {
    return this.request({ method: 'POST', path: '/v1/context', body, idempotent: true }, call);
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
