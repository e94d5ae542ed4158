/**
 * The console's only door to data: the service's public API, called by the browser with the
 * signed-in key in a header (never in a URL, so it reaches no access log or history).
 * Every failure becomes an ApiError carrying the service's error envelope and its request id.
 */
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

const TENANT_HEADER = 'X-Tenant-ID';

export type Query = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function call<T>(session: Session, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'X-API-Key': session.apiKey, Accept: 'application/json' };
  if (session.tenant) headers[TENANT_HEADER] = session.tenant;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, { code: 'network_error', message: `The service did not answer: ${err instanceof Error ? err.message : String(err)}`, request_id: '' });
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const env = (parsed as { error?: ErrorEnvelope } | null)?.error;
    throw new ApiError(res.status, env ?? { code: `http_${res.status}`, message: text.slice(0, 200) || res.statusText, request_id: res.headers.get('X-Request-ID') ?? '' });
  }
  return parsed as T;
}

// Wire shapes the console reads (openapi.json; snake_case as on the wire).
export interface SubjectItem {
  subject_id: string;
  episode_count: number;
  memory_count: number;
}
export interface SubjectList {
  subjects: SubjectItem[];
  total: number;
}
export interface Memory {
  id: string;
  subject_id: string;
  kind: string;
  content: string;
  summary?: string | null;
  confidence: number;
  status: string;
  origin?: string;
  valid_from: string;
  valid_to: string | null;
  source_episode_ids: string[];
  metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at?: string;
  sensitivity_labels?: string[];
  /** The memory that replaced this one; only on a superseded memory. */
  superseded_by?: string;
}
export interface Episode {
  id: string;
  subject_id: string;
  session_id: string | null;
  source: string;
  type: string;
  payload: Record<string, unknown>;
  created_at: string;
  compiled: boolean;
}
export interface Timeline {
  subject_id: string;
  episodes: Episode[];
  memories: Memory[];
  next_cursor: string | null;
}
export interface ReceiptSummary {
  receipt_id: string;
  subject_id: string;
  task?: string | null;
  mode?: string;
  created_at: string;
}
export interface ReceiptList {
  receipts: ReceiptSummary[];
  next_cursor: string | null;
}
export interface Verdict {
  valid: boolean;
  key_id: string | null;
  algorithm: string | null;
  reason: string;
}
