import { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';

export interface PollingLoopOptions {
  /** Sleep one interval before the first round (maintenance tasks); by default it runs at start. */
  delayFirstRound?: boolean;
}

/**
 * The service's one scheduler: every piece of background work in a process is a PollingLoop —
 * the queue workers (compile jobs, webhook deliveries) and the periodic maintenance tasks
 * (`PollingLoop.every`: orphaned jobs, retentions, cleanups, health-mark sweep, embedding
 * backfill, table statistics upkeep). A round runs, then the loop sleeps `pollMs` unless the round
 * says more work is due, and stops promptly on shutdown, so rounds never overlap. A round that
 * throws is usually the database being down: it is logged once, not once per poll, and the loop
 * keeps polling until a round succeeds again. Work that tests or the CLI also start directly
 * joins a run in progress through SingleFlight (single-flight.ts) instead of starting a second one;
 * work that must run once across processes takes a lock of the advisory-lock registry.
 *
 * Started with the app's `SchedulerRegistry` (@nestjs/schedule), a loop's pending timer is held
 * there under the loop's name while it sleeps: every timer of the process is in one registry,
 * which operators and tests can list, and which @nestjs/schedule clears at shutdown. The loop
 * rather than a fixed `setInterval` decides when the next round is due, because a round may ask
 * to go again at once, be woken by new work, or take longer than the period (no overlap).
 */
export class PollingLoop {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wakeSleeper: (() => void) | null = null;
  /** A wake() that came while a round was running: go again without sleeping. */
  private woken = false;
  private failing = false;
  private registry: SchedulerRegistry | null = null;

  /**
   * @param round one round of work; returns true when more work is already due, so the loop
   *   goes again without sleeping.
   */
  constructor(
    private readonly name: string,
    private readonly logger: Logger,
    private readonly pollMs: number,
    private readonly round: () => Promise<boolean>,
    private readonly options: PollingLoopOptions = {},
  ) {}

  /**
   * A periodic task: `run` every `everyMs`, measured from the end of the previous run; the first
   * run one interval after start unless `delayFirstRound` is false.
   */
  static every(name: string, logger: Logger, everyMs: number, run: () => Promise<unknown>, options: PollingLoopOptions = { delayFirstRound: true }): PollingLoop {
    return new PollingLoop(
      name,
      logger,
      everyMs,
      async () => {
        await run();
        return false;
      },
      options,
    );
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Started and not yet stopped. */
  get isRunning(): boolean {
    return this.loop !== null && !this.stopping;
  }

  /** Starts the loop; with the app's SchedulerRegistry, its sleeping timer is registered there. */
  start(registry?: SchedulerRegistry): void {
    this.registry = registry ?? null;
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
    if (this.options.delayFirstRound) await this.sleep(this.pollMs);
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
      const done = (): void => {
        this.unregister();
        this.wakeSleeper = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.register(timer);
      this.wakeSleeper = () => {
        clearTimeout(timer);
        done();
      };
    });
  }

  private register(timer: ReturnType<typeof setTimeout>): void {
    if (!this.registry) return;
    this.unregister();
    this.registry.addTimeout(this.name, timer);
  }

  private unregister(): void {
    if (this.registry?.doesExist('timeout', this.name)) this.registry.deleteTimeout(this.name);
  }
}
