/**
 * One read shared by concurrent callers, never one that began before they asked.
 *
 * A caller that finds no read in flight starts one (a lone caller pays nothing extra). A caller
 * that arrives while a read is in flight does not take its answer (that query's snapshot may
 * predate the caller, and miss a row committed just before it asked): it waits for the next
 * read, which starts as soon as the current one ends and answers everyone who arrived in the
 * meantime. Every answer therefore comes from a query that started after its caller asked, as
 * fresh as a query of its own, while under load one query serves what arrives during one round
 * trip: the read-side twin of GroupCommit.
 *
 * A failed read fails the callers that shared it, as their own query would have.
 */
export class FreshRead<T> {
  private running: Promise<T> | null = null;
  private next: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    const running = this.running;
    if (running === null) return this.start();
    if (this.next === null) {
      const settled = () => {
        this.next = null;
        return this.start();
      };
      this.next = running.then(settled, settled);
    }
    return this.next;
  }

  private start(): Promise<T> {
    const read = this.read();
    this.running = read;
    const done = () => {
      if (this.running === read) this.running = null;
    };
    read.then(done, done);
    return read;
  }
}
