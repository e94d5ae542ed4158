/**
 * The one way the service talks to models: the `openai` SDK against OpenAI or any
 * OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio). Chat (the llm compiler)
 * and embeddings may live on different servers with different keys (LLM_BASE_URL,
 * EMBEDDING_BASE_URL, both defaulting to OPENAI_BASE_URL). Shared by the embedding provider and
 * the llm compiler, so one semaphore bounds every request in flight (LLM_CONCURRENCY). Each
 * request is a client span (`gen_ai.*` attributes, never a payload) and counted in
 * memory_model_requests_total / memory_model_request_duration_seconds.
 *
 * Retries are ours, not the SDK's (it is built with maxRetries 0): we honour Retry-After up
 * to a cap, give the concurrency slot back while waiting, log each retry without secrets,
 * and turn every failure into a ModelCallError whose message is safe to store and log.
 */
import { Logger } from '@nestjs/common';
import { SpanKind } from '@opentelemetry/api';
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { metrics } from 'src/common/metrics/metrics';
import { withSpan } from 'src/common/tracing/tracing';
import type { AppConfig } from 'src/config/app-config';
import { Semaphore } from './semaphore';

/** A Retry-After longer than this is not waited for: the call fails now and the work is retried later. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;
/** Server error text kept in our messages: enough to diagnose, never a whole body. */
const MAX_DETAIL_CHARS = 200;

/** The process's one gateway (one semaphore for every model request). */
export const MODEL_GATEWAY = Symbol('MODEL_GATEWAY');

export type ModelFailure = 'timeout' | 'connection' | 'rate_limited' | 'server_error' | 'rejected' | 'not_configured' | 'invalid_response';

/** A failed model request. `message` never contains a key or a payload. */
export class ModelCallError extends Error {
  constructor(
    readonly failure: ModelFailure,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.failure === 'timeout' || this.failure === 'connection' || this.failure === 'rate_limited' || this.failure === 'server_error';
  }
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** `json_schema` needs `schema`; `json_object` is JSON mode; `none` sends no response_format. */
  responseFormat: 'json_schema' | 'json_object' | 'none';
  schema?: { name: string; schema: Record<string, unknown> };
  maxOutputTokens: number;
}

/** One model server: where it is and the key it wants (empty for a local server). */
export interface ModelEndpointSettings {
  apiKey: string;
  baseUrl: string;
}

export type ModelCallKind = 'chat' | 'embeddings';

export interface ModelGatewaySettings {
  chat: ModelEndpointSettings;
  embeddings: ModelEndpointSettings;
  maxRetries: number;
  concurrency: number;
  chatTimeoutMs: number;
  embeddingTimeoutMs: number;
}

interface Endpoint {
  settings: ModelEndpointSettings;
  client: OpenAI | null;
  /** Where requests go, for messages and spans: the host only (a base URL may carry credentials). */
  host: string;
}

export class ModelGateway {
  private readonly logger = new Logger('models');
  private readonly semaphore: Semaphore;
  private readonly endpoints: Record<ModelCallKind, Endpoint>;

  constructor(
    private readonly settings: ModelGatewaySettings,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.semaphore = new Semaphore(settings.concurrency);
    const endpoint = (e: ModelEndpointSettings): Endpoint => ({
      settings: e,
      host: e.baseUrl ? safeHost(e.baseUrl) : 'api.openai.com',
      client: isConfigured(e)
        ? new OpenAI({
            // Local servers ignore the key, but the SDK insists on one.
            apiKey: e.apiKey || 'not-needed',
            baseURL: e.baseUrl || undefined,
            maxRetries: 0,
            // A backstop only: each call aborts at its own deadline (see call()).
            timeout: Math.max(settings.chatTimeoutMs, settings.embeddingTimeoutMs) + 5_000,
            logLevel: 'off',
          })
        : null,
    });
    this.endpoints = { chat: endpoint(settings.chat), embeddings: endpoint(settings.embeddings) };
  }

  static fromConfig(config: AppConfig): ModelGateway {
    return new ModelGateway({
      chat: { apiKey: config.llmApiKey, baseUrl: config.llmBaseUrl },
      embeddings: { apiKey: config.embeddingApiKey, baseUrl: config.embeddingBaseUrl },
      maxRetries: config.llmMaxRetries,
      concurrency: config.llmConcurrency,
      chatTimeoutMs: config.llmTimeoutMs,
      embeddingTimeoutMs: config.embeddingTimeoutMs,
    });
  }

  /** False when there is nothing to call for `kind`: no key for api.openai.com and no local base URL. */
  configuredFor(kind: ModelCallKind): boolean {
    return this.endpoints[kind].client !== null;
  }

  /** The host `kind` requests go to, for messages. */
  endpointOf(kind: ModelCallKind): string {
    return this.endpoints[kind].host;
  }

  /** The assistant's reply text (possibly empty: the caller validates it). */
  async chat(req: ChatRequest): Promise<{ content: string; finishReason: string | null }> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: req.model,
      messages: req.messages,
      temperature: 0,
      ...(req.maxOutputTokens > 0 ? { max_tokens: req.maxOutputTokens } : {}),
      ...(req.responseFormat === 'json_object' ? { response_format: { type: 'json_object' } } : {}),
      ...(req.responseFormat === 'json_schema' && req.schema
        ? { response_format: { type: 'json_schema', json_schema: { name: req.schema.name, schema: req.schema.schema, strict: true } } }
        : {}),
    };
    const res = await this.call('chat', req.model, this.settings.chatTimeoutMs, (client, signal) => client.chat.completions.create(body, { signal, maxRetries: 0 }));
    const choice = Array.isArray(res?.choices) ? res.choices[0] : undefined;
    if (!choice || typeof choice !== 'object') throw new ModelCallError('invalid_response', `chat response from ${this.endpointOf('chat')} has no choices`);
    const content = typeof choice.message?.content === 'string' ? choice.message.content : '';
    return { content, finishReason: choice.finish_reason ?? null };
  }

  /**
   * One embedding per input, in input order. Only the transport is checked here (one vector of
   * numbers per input); dimensions are the provider's business.
   */
  async embed(model: string, input: string[], dimensions?: number): Promise<number[][]> {
    const body: OpenAI.EmbeddingCreateParams = {
      model,
      input,
      // The SDK asks for base64 by default; several local servers only speak float.
      encoding_format: 'float',
      ...(dimensions !== undefined ? { dimensions } : {}),
    };
    const res = await this.call('embeddings', model, this.settings.embeddingTimeoutMs, (client, signal) => client.embeddings.create(body, { signal, maxRetries: 0 }));
    const data = Array.isArray(res?.data) ? [...res.data] : null;
    if (data === null || data.length !== input.length) {
      throw new ModelCallError('invalid_response', `embedding response from ${this.endpointOf('embeddings')} has ${data?.length ?? 'no'} vectors for ${input.length} inputs`);
    }
    data.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return data.map((d, i) => {
      if (!Array.isArray(d.embedding) || !d.embedding.every((x) => typeof x === 'number')) {
        throw new ModelCallError('invalid_response', `embedding ${i} from ${this.endpointOf('embeddings')} is not an array of numbers`);
      }
      return d.embedding;
    });
  }

  /** One request with our retries, as one span and one counted outcome (retries inside). */
  private async call<T>(kind: ModelCallKind, model: string, timeoutMs: number, fn: (client: OpenAI, signal: AbortSignal) => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    const attrs = { 'gen_ai.operation.name': kind, 'gen_ai.system': 'openai', 'gen_ai.request.model': model, 'server.address': this.endpointOf(kind) };
    let outcome = 'ok';
    try {
      return await withSpan(`${kind} ${model}`, attrs, () => this.attempts(kind, timeoutMs, fn), SpanKind.CLIENT);
    } catch (err) {
      outcome = err instanceof ModelCallError ? err.failure : 'error';
      throw err;
    } finally {
      metrics.modelRequests.inc({ kind, outcome });
      metrics.modelRequestDuration.observe({ kind }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private async attempts<T>(kind: ModelCallKind, timeoutMs: number, fn: (client: OpenAI, signal: AbortSignal) => Promise<T>): Promise<T> {
    const client = this.endpoints[kind].client;
    if (client === null) {
      const setting = kind === 'chat' ? 'SERVICE_LLM_BASE_URL' : 'SERVICE_EMBEDDING_BASE_URL';
      throw new ModelCallError('not_configured', `no model server configured for ${kind}: set SERVICE_OPENAI_API_KEY, or SERVICE_OPENAI_BASE_URL (or ${setting}) for a local server`);
    }
    const endpoint = this.endpointOf(kind);
    for (let attempt = 0; ; attempt++) {
      const deadline = new AbortController();
      try {
        return await this.semaphore.run(() => {
          // Our own deadline, started once the request has its slot: the SDK reports its
          // timeout as a plain connection error in some runtimes, an abort we caused is certain.
          const timer = setTimeout(() => deadline.abort(), timeoutMs);
          return fn(client, deadline.signal).finally(() => clearTimeout(timer));
        });
      } catch (raw) {
        const err = deadline.signal.aborted
          ? new ModelCallError('timeout', `${kind} request to ${endpoint} timed out after ${timeoutMs / 1000} s`)
          : this.toModelError(kind, raw, timeoutMs);
        if (!err.retryable || attempt >= this.settings.maxRetries) throw err;
        const delay = err.retryAfterMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
        if (delay > MAX_RETRY_AFTER_MS) {
          throw new ModelCallError(err.failure, `${err.message}; the server asked to wait ${Math.ceil(delay / 1000)} s, more than the ${MAX_RETRY_AFTER_MS / 1000} s this service waits`, err.status, err.retryAfterMs);
        }
        this.logger.warn({ err: { message: err.message }, attempt: attempt + 1, retry_in_ms: Math.round(delay) }, `${kind} request failed; retrying`);
        await this.sleep(delay);
      }
    }
  }

  private toModelError(kind: ModelCallKind, raw: unknown, timeoutMs: number): ModelCallError {
    if (raw instanceof ModelCallError) return raw;
    const what = `${kind} request to ${this.endpointOf(kind)}`;
    if (raw instanceof APIConnectionTimeoutError || (raw instanceof APIUserAbortError && /timed? ?out/i.test(raw.message))) {
      return new ModelCallError('timeout', `${what} timed out after ${timeoutMs / 1000} s`);
    }
    if (raw instanceof APIError && raw.status === undefined) {
      return new ModelCallError('connection', `${what} failed: could not connect (${this.redact(raw.message)})`);
    }
    if (raw instanceof APIError && typeof raw.status === 'number') {
      const status = raw.status;
      const detail = this.redact(raw.message.replace(/^\d{3}\s*/, ''));
      const message = `${what} failed: HTTP ${status}${detail ? ` (${detail})` : ''}`;
      if (status === 429) return new ModelCallError('rate_limited', message, status, retryAfterMs(raw.headers));
      if (status >= 500 || status === 408 || status === 409) return new ModelCallError('server_error', message, status, retryAfterMs(raw.headers));
      return new ModelCallError('rejected', message, status);
    }
    // The SDK parses JSON bodies itself: a non-JSON 200 ends up here as a SyntaxError.
    const message = raw instanceof Error ? raw.message : String(raw);
    return new ModelCallError('invalid_response', `${what} returned an unreadable response (${this.redact(message)})`);
  }

  /** Server messages may echo the key ("Incorrect API key provided: sk-…"): cut it out, and bound the text. */
  private redact(text: string): string {
    let out = text;
    for (const { apiKey } of [this.settings.chat, this.settings.embeddings]) if (apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
    out = out.replace(/\b(sk|pk|rk)-[A-Za-z0-9_*\-.]{4,}/g, '[redacted]').replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
    out = out.replace(/\s+/g, ' ').trim();
    return out.length > MAX_DETAIL_CHARS ? `${out.slice(0, MAX_DETAIL_CHARS)}…` : out;
  }
}

/** Retry-After in seconds or as an HTTP date; `retry-after-ms` when a server sends it. */
export function retryAfterMs(headers: Headers | undefined | null, now = Date.now()): number | null {
  if (!headers || typeof headers.get !== 'function') return null;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function isConfigured(e: ModelEndpointSettings): boolean {
  return e.apiKey !== '' || e.baseUrl !== '';
}

function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return u.host + (u.pathname === '/' ? '' : u.pathname);
  } catch {
    return 'the configured server';
  }
}
