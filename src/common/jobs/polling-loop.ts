import { Logger } from '@nestjs/common';

/**
 * The poll loop shared by the background workers (compile jobs, webhook deliveries): run a
 * round, sleep `pollMs` unless the round says more work is due, and stop promptly on shutdown.
 * A round that throws is usually the database being down: it is logged once, not once per
 * poll, and the loop keeps polling until a round succeeds again.
 */
export class PollingLoop {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private failing = false;

  /**
   * @param round one round of work; returns true when more work is already due, so the loop
   *   goes again without sleeping.
   */
  constructor(
    private readonly name: string,
    private readonly logger: Logger,
    private readonly pollMs: number,
    private readonly round: () => Promise<boolean>,
  ) {}

  get isStopping(): boolean {
    return this.stopping;
  }

  get isRunning(): boolean {
    return this.loop !== null;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the current round; resolves when that round has finished (none running: at once). */
  stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    return this.loop ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let more = false;
      try {
        more = await this.round();
        if (this.failing) this.logger.log(`${this.name} recovered`);
        this.failing = false;
      } catch (err) {
        if (!this.failing) this.logger.warn({ err: { message: (err as Error).message } }, `${this.name} round failed; retrying`);
        this.failing = true;
      }
      if (!more) await this.sleep(this.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
