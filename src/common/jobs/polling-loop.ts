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
  private wakeSleeper: (() => void) | null = null;
  /** A wake() that came while a round was running: go again without sleeping. */
  private woken = false;
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
    this.wakeSleeper?.();
    return this.loop ?? Promise.resolve();
  }

  /**
   * New work was just committed in this process (e.g. an async compile job): run a round now
   * instead of at the end of the poll interval. Other processes still find it by polling.
   */
  wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.woken = true;
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
      if (!more && !this.woken) await this.sleep(this.pollMs);
      this.woken = false;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeSleeper = null;
        resolve();
      }, ms);
      this.wakeSleeper = () => {
        clearTimeout(timer);
        this.wakeSleeper = null;
        resolve();
      };
    });
  }
}
