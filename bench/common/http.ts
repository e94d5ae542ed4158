import { Agent, request } from 'node:http';

/** JSON over HTTP with a status check on every call: a benchmark that ignores errors measures nothing. */
export class HttpError extends Error {}

export interface Client {
  call<T = unknown>(method: string, path: string, body?: unknown, expect?: number[]): Promise<T>;
  errors: number;
}

/**
 * node:http with kept-alive connections rather than fetch: on a 2-core machine the client shares
 * the CPU with the service and the database, and undici's fetch cost about as much CPU per call
 * as the service's own handling of a small request, so it capped what could be measured.
 */
export function client(base: string, headers: Record<string, string> = {}): Client {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const c: Client = {
    errors: 0,
    call<T>(method: string, path: string, body?: unknown, expect: number[] = [200, 201, 202]): Promise<T> {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      return new Promise<T>((resolve, reject) => {
        const req = request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const status = res.statusCode ?? 0;
              if (!expect.includes(status)) {
                c.errors++;
                reject(new HttpError(`${method} ${path} -> ${status}: ${text.slice(0, 300)}`));
                return;
              }
              try {
                resolve((text ? JSON.parse(text) : undefined) as T);
              } catch (err) {
                c.errors++;
                reject(new HttpError(`${method} ${path} -> ${status}: body is not JSON (${(err as Error).message})`));
              }
            });
            res.on('error', reject);
          },
        );
        req.on('error', (err: NodeJS.ErrnoException) => {
          // The server may close an idle kept-alive socket just as the client reuses it (slow
          // client steps between calls on a loaded machine): Node's documented case for a retry.
          if (req.reusedSocket && err.code === 'ECONNRESET') {
            c.call<T>(method, path, body, expect).then(resolve, reject);
            return;
          }
          c.errors++;
          reject(err);
        });
        req.end(payload);
      });
    },
  };
  return c;
}

/** Runs `total` calls of `fn(i)` with `concurrency` in flight; returns per-call ms and the wall time. */
export async function load(total: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<{ samples: number[]; wallMs: number }> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t0 = performance.now();
      await fn(i);
      samples.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { samples, wallMs: performance.now() - started };
}
