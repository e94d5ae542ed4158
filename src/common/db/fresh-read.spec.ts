import { FreshRead } from './fresh-read';

/**
 * A read whose answer is the value of `state` when the read started (its "snapshot"), settled
 * by the test: `reads` records each read's snapshot and lets the test end it.
 */
function controlled() {
  const state = { value: 0 };
  const reads: { snapshot: number; end: (fail?: Error) => void }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const snapshot = state.value;
      reads.push({ snapshot, end: (fail) => (fail ? reject(fail) : resolve(snapshot)) });
    });
  return { state, reads, read };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('FreshRead', () => {
  it('starts a read at once for a lone caller, and a new one for the next lone caller', async () => {
    const { reads, read } = controlled();
    const fresh = new FreshRead(read);
    const a = fresh.get();
    expect(reads).toHaveLength(1);
    reads[0].end();
    await expect(a).resolves.toBe(0);
    const b = fresh.get();
    expect(reads).toHaveLength(2);
    reads[1].end();
    await expect(b).resolves.toBe(0);
  });

  it('never answers a caller from a read that started before it asked', async () => {
    const { state, reads, read } = controlled();
    const fresh = new FreshRead(read);
    const first = fresh.get();
    // A row lands after the first read took its snapshot; callers asking now must see it.
    state.value = 1;
    const later = [fresh.get(), fresh.get(), fresh.get()];
    expect(reads).toHaveLength(1);
    reads[0].end();
    await expect(first).resolves.toBe(0);
    await tick();
    // One read for all three who arrived during the first, started after they asked.
    expect(reads).toHaveLength(2);
    expect(reads[1].snapshot).toBe(1);
    reads[1].end();
    await expect(Promise.all(later)).resolves.toEqual([1, 1, 1]);
  });

  it('takes callers arriving during the shared read into the read after it', async () => {
    const { state, reads, read } = controlled();
    const fresh = new FreshRead(read);
    const first = fresh.get();
    const second = fresh.get();
    reads[0].end();
    await first;
    await tick();
    state.value = 2;
    const third = fresh.get();
    reads[1].end();
    await expect(second).resolves.toBe(0);
    await tick();
    expect(reads).toHaveLength(3);
    reads[2].end();
    await expect(third).resolves.toBe(2);
  });

  it('fails the callers that shared a failed read, and reads again for the next', async () => {
    const { reads, read } = controlled();
    const fresh = new FreshRead(read);
    const first = fresh.get();
    const shared = [fresh.get(), fresh.get()];
    reads[0].end();
    await first;
    await tick();
    reads[1].end(new Error('connection lost'));
    const settled = await Promise.allSettled(shared);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    const after = fresh.get();
    expect(reads).toHaveLength(3);
    reads[2].end();
    await expect(after).resolves.toBe(0);
  });
});
