import { request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  ms: number;
}

/**
 * One HTTP request with full control of the bytes (method, already-encoded path, headers,
 * body, absent content type), which supertest and fetch normalise away. Throws on a client-side
 * refusal (a header Node will not send) or a network error; `timeoutMs` bounds the whole call.
 */
export function rawRequest(
  base: string,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string | null; timeoutMs?: number },
): Promise<RawResponse> {
  const started = Date.now();
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined || opts.body === null ? null : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8');
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (body !== null) headers['Content-Length'] = String(body.length);
    let req;
    try {
      req = httpRequest({ host: u.hostname, port: u.port, method: opts.method.toUpperCase(), path: opts.path, headers, agent: false });
    } catch (err) {
      reject(err);
      return;
    }
    const timer = setTimeout(() => req.destroy(new Error(`request timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs ?? 30_000);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, ms: Date.now() - started });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // The server may answer (413, 415) and close before the whole body is written.
    req.on('socket', (s) => s.on('error', () => undefined));
    if (body !== null) req.write(body);
    req.end();
  });
}

/** JSON request helper for workloads (fetch, bounded by a timeout). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- workload answers are read loosely
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<{ status: number; body: any; headers: Headers }> {
  const send = () =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    // fetch reuses pooled keep-alive connections; on a starved test process it can pick one the
    // server is closing as idle (Node's 5 s keepAliveTimeout), and writing a large body to it
    // fails with EPIPE. The server never read that body, so sending it again on a fresh
    // connection is the same request, not a second one.
    if ((err as { cause?: { code?: string } }).cause?.code !== 'EPIPE') throw err;
    res = await send();
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Checks the contract's error envelope and request id on a non-2xx answer; returns a problem or null. */
export function envelopeProblem(r: Pick<RawResponse, 'status' | 'headers' | 'json'>): string | null {
  const rid = r.headers['x-request-id'];
  if (typeof rid !== 'string' || rid === '') return 'no X-Request-ID header';
  if (r.status < 400) return null;
  const e = (r.json as { error?: Record<string, unknown> } | undefined)?.error;
  if (!e || typeof e !== 'object') return 'no error envelope';
  if (typeof e.code !== 'string' || typeof e.message !== 'string') return 'envelope without code/message';
  if (!('details' in e)) return 'envelope without details';
  if (e.request_id !== rid) return `envelope request_id ${JSON.stringify(e.request_id)} differs from header ${JSON.stringify(rid)}`;
  return null;
}
