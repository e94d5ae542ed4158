/**
 * Group commit: concurrent submissions are written together, one transaction for many requests.
 *
 * No timer: a submission that finds no group being written is written at once (alone, so a
 * lone client pays nothing); submissions that arrive while a group is being written wait for
 * it and then go together as the next group (at most `maxGroup`). Under load a group therefore
 * holds what arrived during one commit, the window adapting to the database's own latency.
 *
 * Each submission settles only after its group's `write` has returned (committed). When a
 * group fails, its members are written again one by one, so a bad row fails only its own
 * request: `write` must be all-or-nothing (one transaction, or one statement) for that retry to be safe. A failure
 * that `retryAlone` refuses (one whose outcome is unknown, e.g. the connection broke during
 * COMMIT: the group may have committed) fails every member with it instead: a retry could
 * store a second copy of rows without an idempotency key.
 */
export class GroupCommit<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private writing = 0;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly opts: { maxGroup: number; maxInFlight: number; onGroup?: (size: number) => void; retryAlone?: (err: unknown) => boolean },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.writing < this.opts.maxInFlight && this.queue.length > 0) {
      const group = this.queue.splice(0, this.opts.maxGroup);
      this.writing++;
      void this.run(group).finally(() => {
        this.writing--;
        this.pump();
      });
    }
  }

  private async run(group: GroupCommit<I, O>['queue']): Promise<void> {
    this.opts.onGroup?.(group.length);
    try {
      const out = await this.write(group.map((g) => g.item));
      group.forEach((g, i) => g.resolve(out[i]));
    } catch (err) {
      if (group.length === 1 || this.opts.retryAlone?.(err) === false) {
        for (const g of group) g.reject(err);
        return;
      }
      await Promise.all(
        group.map(async (g) => {
          try {
            g.resolve((await this.write([g.item]))[0]);
          } catch (e) {
            g.reject(e);
          }
        }),
      );
    }
  }
}
