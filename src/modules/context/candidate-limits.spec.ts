import { candidateLimits } from './candidate-limits';

describe('candidateLimits', () => {
  it('reads 100 episode hits and 200 memory hits at the default budget of 1,000 tokens', () => {
    expect(candidateLimits(1_000)).toEqual({ text: 100, memoryText: 200, recent: 30, pinned: 30, neighboursOf: 30, semantic: 50 });
  });

  it('reads at least one memory hit per 5 tokens, and never fewer memory hits than episode hits', () => {
    expect(candidateLimits(1).memoryText).toBe(100);
    expect(candidateLimits(500).memoryText).toBe(100);
    expect(candidateLimits(750).memoryText).toBe(150);
    expect(candidateLimits(1_500)).toMatchObject({ text: 250, memoryText: 300 });
    expect(candidateLimits(2_000)).toMatchObject({ text: 400, memoryText: 400 });
    expect(candidateLimits(3_000)).toMatchObject({ text: 700, memoryText: 700 });
  });

  it('deepens episode hits only above the default budget', () => {
    expect([1, 500, 1_000].map((b) => candidateLimits(b).text)).toEqual([100, 100, 100]);
    expect(candidateLimits(1_010).text).toBe(103);
  });

  it('keeps every branch bounded at the largest budget', () => {
    const limits = candidateLimits(128_000);
    expect(limits).toEqual({ text: 1_000, memoryText: 1_000, recent: 400, pinned: 400, neighboursOf: 30, semantic: 50 });
  });

  it('grows the newest-items branches at one per 40 tokens from 30', () => {
    expect(candidateLimits(800)).toMatchObject({ recent: 30, pinned: 30 });
    expect(candidateLimits(4_000)).toMatchObject({ recent: 100, pinned: 100 });
  });
});
