/**
 * The one re-entrancy guard for background work: a run asked for while one is in progress joins
 * it (same promise, same result) instead of starting a second one. Used by every task a
 * PollingLoop runs and that tests or the CLI can also start directly.
 */
export class SingleFlight<T> {
  private current: Promise<T> | null = null;

  get running(): boolean {
    return this.current !== null;
  }

  run(start: () => Promise<T>): Promise<T> {
    this.current ??= start().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  /** Resolves once the run in progress, if any, has ended (never rejects). */
  settled(): Promise<void> {
    return this.current ? this.current.then(
      () => undefined,
      () => undefined,
    ) : Promise.resolve();
  }
}
