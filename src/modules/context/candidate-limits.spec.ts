import { candidateLimits } from './candidate-limits';

describe('candidateLimits', () => {
  it('reads 100 episode hits and 200 memory hits at the default budget of 1,000 tokens', () => {
    expect(candidateLimits(1_000)).toEqual({ text: 100, memoryText: 200, variants: 20, recent: 30, pinned: 30, neighboursOf: 30, semantic: 50 });
  });

  it('reads one memory hit per 5 tokens up to 1,000 tokens, one per 20 beyond, never fewer than 100', () => {
    expect(candidateLimits(1).memoryText).toBe(100);
    expect(candidateLimits(500).memoryText).toBe(100);
    expect(candidateLimits(750).memoryText).toBe(150);
    expect(candidateLimits(1_000).memoryText).toBe(200);
    expect(candidateLimits(1_500).memoryText).toBe(225);
    expect(candidateLimits(2_000).memoryText).toBe(250);
    expect(candidateLimits(4_000).memoryText).toBe(350);
    expect(candidateLimits(16_000).memoryText).toBe(950);
    expect(candidateLimits(17_000).memoryText).toBe(1_000);
    expect(candidateLimits(128_000).memoryText).toBe(1_000);
  });

  it('reads 100 episode hits at every budget: the memory hits deepen instead', () => {
    expect([1, 500, 1_000, 1_010, 2_000, 4_000, 128_000].map((b) => candidateLimits(b).text)).toEqual([100, 100, 100, 100, 100, 100, 100]);
  });

  it('keeps every branch bounded at the largest budget', () => {
    const limits = candidateLimits(128_000);
    expect(limits).toEqual({ text: 100, memoryText: 1_000, variants: 20, recent: 400, pinned: 400, neighboursOf: 30, semantic: 50 });
  });

  it('grows the newest-items branches at one per 40 tokens from 30', () => {
    expect(candidateLimits(800)).toMatchObject({ recent: 30, pinned: 30 });
    expect(candidateLimits(4_000)).toMatchObject({ recent: 100, pinned: 100 });
  });
});
