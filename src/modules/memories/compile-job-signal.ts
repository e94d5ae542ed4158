import { Injectable } from '@nestjs/common';

/**
 * Tells this process's compile worker that a job was just committed, so it starts within
 * milliseconds instead of at its next poll (WORKER_POLL_MS, 1 s by default). Other processes
 * find the job by polling, as before.
 */
@Injectable()
export class CompileJobSignal {
  private readonly listeners = new Set<() => void>();

  onQueued(listener: () => void): void {
    this.listeners.add(listener);
  }

  queued(): void {
    for (const listener of this.listeners) listener();
  }
}
