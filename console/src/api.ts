/**
 * The console's only door to data: the service's public API through the typed client
 * (clients/typescript), called by the browser with the signed-in key in a header (never in a URL,
 * so it reaches no access log or history). Every failure becomes an ApiError carrying the
 * service's error envelope and its request id.
 */
import { MemoryServiceClient, MemoryServiceConnectionError, MemoryServiceError } from '../../clients/typescript/src/index.js';
import type { components } from '../../clients/typescript/src/index.js';

export type { MemoryServiceClient };

export interface Session {
  apiKey: string;
  /** Tenant sent in X-Tenant-ID; null when tenants are not in use or the key is bound to one. */
  tenant: string | null;
}

export interface ErrorEnvelope {
  code: string;
  message: string;
  details?: unknown;
  request_id: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
  ) {
    super(envelope.message);
  }
}

/**
 * The browser's fetch with what the console needs on every request: no cookies (the key header is
 * the only credential, so no ambient one can ride along) and no HTTP cache (every view is live).
 */
const consoleFetch: typeof fetch = (input, init) => fetch(input, { ...init, credentials: 'omit', cache: 'no-store' });

// One client per signed-in session: signing in again makes a new Session object, so a new client.
const clients = new WeakMap<Session, MemoryServiceClient>();

function clientFor(session: Session): MemoryServiceClient {
  let client = clients.get(session);
  if (!client) {
    client = new MemoryServiceClient({
      baseUrl: location.origin,
      apiKey: session.apiKey,
      tenantId: session.tenant ?? undefined,
      // A person is waiting and has a Retry button: show a 429/503 at once rather than back off.
      maxRetries: 0,
      fetch: consoleFetch,
    });
    clients.set(session, client);
  }
  return client;
}

/** Run one client call for the session; its errors come back as ApiError, the type the pages render. */
export async function api<T>(session: Session, run: (client: MemoryServiceClient) => Promise<T>): Promise<T> {
  try {
    return await run(clientFor(session));
  } catch (err) {
    throw toApiError(err);
  }
}

function toApiError(err: unknown): unknown {
  if (err instanceof MemoryServiceError) {
    return new ApiError(err.status, { code: err.code, message: err.message, details: err.details, request_id: err.requestId ?? '' });
  }
  if (err instanceof MemoryServiceConnectionError) {
    const cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
    return new ApiError(0, { code: 'network_error', message: `The service did not answer: ${cause}`, request_id: '' });
  }
  return err;
}

/** The tenant an operator route narrows to: the session's, or every tenant. */
export function tenantQuery(session: Session): { tenant_id?: string } {
  return session.tenant ? { tenant_id: session.tenant } : {};
}

// Wire shapes the console reads, from the client's generated schema (openapi.json, snake_case).
type Schemas = components['schemas'];
export type SubjectList = Schemas['SubjectListDto'];
export type SubjectItem = SubjectList['subjects'][number];
export type Memory = Schemas['MemoryDto'];
export type Episode = Schemas['EpisodeDto'];
export type Timeline = Schemas['TimelineDto'];
export type ReceiptList = Schemas['ReceiptListDto'];
export type ReceiptSummary = Schemas['ReceiptDto'];
export type Verdict = Schemas['ReceiptVerdictDto'];
export type SubjectHealth = Schemas['HealthResultDto'];
export type SubjectSla = Schemas['SlaResultDto'];
export type HandoffPack = Schemas['HandoffPackDto'];
export type WebhookStats = Schemas['WebhookStatsDto'];
export type PolicyBundle = Schemas['PolicyBundleDto'];
// The filters' <select> options are these values (or empty for "any").
export type MemoryKind = Schemas['RememberMemoryDto']['kind'];
export type JobStatus = Schemas['JobItemDto']['status'];
export type WebhookStatus = Schemas['WebhookEventSummaryDto']['status'];
