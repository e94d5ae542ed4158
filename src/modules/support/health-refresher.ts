import type { TenantScope } from 'src/common/db/tenant-scope';
import { subjectKey } from './health';

/**
 * See HealthRefresher.schedule: the pause after a flush is at least this many times its duration,
 * so recomputation takes at most a twentieth of the process's time. At a fifth (4), single-episode
 * ingestion at concurrency 8 into one growing subject spent 7–11% more service CPU per request and
 * its p99 was 1.4–1.7× as long (bench/README.md, 2026-12-04 evening); a hot subject's health event
 * now waits about a second behind a 50 ms recomputation instead of 200 ms.
 */
export const BUSY_FACTOR = 19;

/**
 * Health recomputation after ingestion, coalesced and off the request path.
 *
 * Why: health reads every session of a subject, so recomputing it inside each POST /v1/episodes
 * made ingestion O(episodes of the subject) per call and serialised concurrent ingests of one
 * subject on its cache row lock (38 episodes/s at concurrency 1 on a 2,000-episode subject in
 * bench/perf). Here an ingestion only marks its subjects; after a short delay each marked
 * subject is recomputed once, however many episodes arrived meanwhile. The exactly-once rule
 * for health events is unchanged: it lives in the recomputation (the cache row lock), not here.
 *
 * What a lost mark costs (the process dies before the flush): nothing but delay. The episode's
 * INSERT also wrote a durable mark row (migration 0017) that only a recomputation deletes; the
 * next start, or another process's sweep a minute later, recomputes the subject and emits the
 * event (HealthMarksSweeper).
 */
export class HealthRefresher {
  private readonly dirty = new Map<string, { scope: TenantScope; subjectId: string }>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** How long the last flush took: the next waits at least BUSY_FACTOR times as long. */
  private lastFlushMs = 0;

  /**
   * @param recompute recomputes one subject in its own transaction; a failure is reported to
   *   `onError` and does not stop the other subjects.
   * @param delayMs how long marks gather before a flush.
   */
  constructor(
    private readonly recompute: (scope: TenantScope, subjectId: string) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly delayMs: number,
  ) {}

  /** Subjects marked and not yet recomputed. */
  get pending(): number {
    return this.dirty.size;
  }

  mark(scope: TenantScope, subjectIds: Iterable<string>): void {
    if (this.closed) return;
    for (const subjectId of subjectIds) this.dirty.set(subjectKey({ tenantId: scope.tenantId, subjectId }), { scope, subjectId });
    this.schedule();
  }

  /** Recomputes everything marked so far, now; for shutdown and for tests. */
  async drain(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running || this.dirty.size > 0) {
      if (this.running) await this.running;
      else await this.start();
    }
  }

  /**
   * Shutdown: recomputes what is marked, then ignores new marks (the database is about to
   * close; a late ingestion's change is noticed by the subject's next read instead).
   */
  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
  }

  private schedule(): void {
    // A flush in progress schedules the next one when it ends (marks made meanwhile wait for it).
    if (this.timer || this.running || this.dirty.size === 0) return;
    // Recomputing a subject reads all its sessions; under a steady stream of ingests into large
    // subjects the pause grows with the cost, so recomputation takes at most ~1/(1+BUSY_FACTOR)
    // of the time instead of competing with the requests (it runs on their thread, and a
    // computation over thousands of episodes holds it for tens of milliseconds).
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.start();
    }, Math.max(this.delayMs, BUSY_FACTOR * this.lastFlushMs));
    this.timer.unref();
  }

  private start(): Promise<void> {
    this.running = this.flush().finally(() => {
      this.running = null;
      this.schedule();
    });
    return this.running;
  }

  private async flush(): Promise<void> {
    const batch = [...this.dirty.values()];
    this.dirty.clear();
    const started = Date.now();
    for (const { scope, subjectId } of batch) {
      try {
        await this.recompute(scope, subjectId);
      } catch (err) {
        this.onError(err);
      }
    }
    this.lastFlushMs = Date.now() - started;
  }
}
