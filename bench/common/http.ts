/** JSON over HTTP with a status check on every call: a benchmark that ignores errors measures nothing. */
export class HttpError extends Error {}

export interface Client {
  call<T = unknown>(method: string, path: string, body?: unknown, expect?: number[]): Promise<T>;
  errors: number;
}

export function client(base: string, headers: Record<string, string> = {}): Client {
  const c: Client = {
    errors: 0,
    async call<T>(method: string, path: string, body?: unknown, expect: number[] = [200, 201, 202]): Promise<T> {
      const res = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!expect.includes(res.status)) {
        c.errors++;
        throw new HttpError(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
      }
      return (text ? JSON.parse(text) : undefined) as T;
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
