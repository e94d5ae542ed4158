import { nextReceiptId, pooledRandom } from './receipt-ids';

describe('receipt ids', () => {
  it('are ULIDs, increasing within this process, distinct', () => {
    const ids = Array.from({ length: 2000 }, () => nextReceiptId());
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw their randomness from a pool, one fill per poolBytes draws, each a byte ÷ 256', () => {
    let fills = 0;
    const random = pooledRandom(4, (pool) => {
      fills++;
      pool.set([0, 64, 255, 8 * fills]);
    });
    const draws = Array.from({ length: 9 }, () => random());
    expect(fills).toBe(3);
    expect(draws).toEqual([0, 0.25, 255 / 256, 8 / 256, 0, 0.25, 255 / 256, 16 / 256, 0]);
    for (const d of draws) expect(d).toBeLessThan(1);
  });
});
