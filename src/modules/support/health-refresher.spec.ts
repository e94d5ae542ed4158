import { TenantScope } from 'src/common/db/tenant-scope';
import { BUSY_FACTOR, HealthRefresher } from './health-refresher';

describe('HealthRefresher', () => {
  const A = TenantScope.of('a');
  const B = TenantScope.of('b');

  function refresher(delayMs = 10_000) {
    const calls: string[] = [];
    const errors: unknown[] = [];
    let fail = new Set<string>();
    const r = new HealthRefresher(
      async (scope, subject) => {
        await new Promise((res) => setTimeout(res, 1));
        calls.push(`${scope.tenantId}:${subject}`);
        if (fail.has(subject)) throw new Error(`boom ${subject}`);
      },
      (err) => errors.push(err),
      delayMs,
    );
    return { r, calls, errors, failOn: (s: string[]) => (fail = new Set(s)) };
  }

  it('recomputes each marked (tenant, subject) once however often it was marked', async () => {
    const { r, calls } = refresher();
    r.mark(A, ['s1', 's1', 's2']);
    r.mark(A, ['s1']);
    r.mark(B, ['s1']);
    expect(r.pending).toBe(3);
    expect(calls).toEqual([]);
    await r.drain();
    expect(calls).toEqual(['a:s1', 'a:s2', 'b:s1']);
    expect(r.pending).toBe(0);
  });

  it('flushes by itself after the delay', async () => {
    const { r, calls } = refresher(5);
    r.mark(A, ['s1']);
    for (let i = 0; i < 100 && calls.length === 0; i++) await new Promise((res) => setTimeout(res, 5));
    expect(calls).toEqual(['a:s1']);
  });

  it('recomputes a subject marked again during a flush once more after it', async () => {
    const { r, calls } = refresher(1);
    r.mark(A, ['s1']);
    await new Promise((res) => setTimeout(res, 3));
    r.mark(A, ['s1']);
    await r.drain();
    expect(calls).toEqual(['a:s1', 'a:s1']);
  });

  it('reports a failing subject and still recomputes the others', async () => {
    const { r, calls, errors, failOn } = refresher();
    failOn(['bad']);
    r.mark(A, ['bad', 'good']);
    await r.drain();
    expect(calls).toEqual(['a:bad', 'a:good']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom bad']);
  });

  it('recomputes what is marked on close and ignores marks after it', async () => {
    const { r, calls } = refresher();
    r.mark(A, ['s1']);
    await r.close();
    r.mark(A, ['s2']);
    expect(r.pending).toBe(0);
    expect(calls).toEqual(['a:s1']);
  });

  it('pauses after a flush BUSY_FACTOR times as long as it took, however short the delay', async () => {
    jest.useFakeTimers();
    try {
      const flushedAt: number[] = [];
      const r = new HealthRefresher(
        async () => {
          await Promise.resolve();
          flushedAt.push(Date.now());
          // The first recomputation takes 50 ms; the subject is marked again meanwhile.
          if (flushedAt.length > 1) return;
          jest.setSystemTime(Date.now() + 50);
          r.mark(A, ['s1']);
        },
        () => undefined,
        10,
      );
      r.mark(A, ['s1']);
      await jest.advanceTimersByTimeAsync(10);
      expect(flushedAt).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(BUSY_FACTOR * 50 - 1);
      expect(flushedAt).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(flushedAt).toHaveLength(2);
      expect(flushedAt[1] - flushedAt[0]).toBe(50 + BUSY_FACTOR * 50);
      await r.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('marking no subject schedules nothing', async () => {
    const { r, calls } = refresher(1);
    r.mark(A, []);
    await new Promise((res) => setTimeout(res, 10));
    expect(calls).toEqual([]);
  });
});
