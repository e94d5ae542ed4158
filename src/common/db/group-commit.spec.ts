import { GroupCommit } from './group-commit';

/** A write that records its groups and answers each item doubled; items in `bad` fail their group. */
function recorder(bad: Set<number> = new Set()) {
  const groups: number[][] = [];
  const write = async (items: number[]): Promise<number[]> => {
    groups.push(items);
    await new Promise((r) => setImmediate(r));
    if (items.some((i) => bad.has(i))) throw Object.assign(new Error(`refused ${items.join(',')}`), { items });
    return items.map((i) => i * 2);
  };
  return { groups, write };
}

describe('GroupCommit', () => {
  it('writes a lone submission at once and groups those that arrive while a group is being written', async () => {
    const { groups, write } = recorder();
    const gc = new GroupCommit(write, { maxGroup: 3, maxInFlight: 1 });
    const out = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => gc.submit(i)));
    expect(out).toEqual([2, 4, 6, 8, 10, 12]);
    // The first went alone (nothing was being written); the rest waited and went at most 3 together.
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('retries a failed group one by one, so only the refused item fails', async () => {
    const { groups, write } = recorder(new Set([3]));
    const gc = new GroupCommit(write, { maxGroup: 8, maxInFlight: 1 });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((i) => gc.submit(i)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason.message).toBe('refused 3');
    expect(groups).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('fails every member without a retry when retryAlone refuses the error (outcome unknown)', async () => {
    const { groups, write } = recorder(new Set([3]));
    const gc = new GroupCommit(write, { maxGroup: 8, maxInFlight: 1, retryAlone: () => false });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((i) => gc.submit(i)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('reports each group size', async () => {
    const sizes: number[] = [];
    const gc = new GroupCommit(recorder().write, { maxGroup: 2, maxInFlight: 1, onGroup: (n) => sizes.push(n) });
    await Promise.all([1, 2, 3].map((i) => gc.submit(i)));
    expect(sizes).toEqual([1, 2]);
  });
});
