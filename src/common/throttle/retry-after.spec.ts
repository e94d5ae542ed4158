import { retryAfterSeconds } from './retry-after';

describe('retryAfterSeconds', () => {
  it('rounds up to whole seconds within 1 and the window', () => {
    expect(retryAfterSeconds(0.2, 60)).toBe(1);
    expect(retryAfterSeconds(0, 60)).toBe(1);
    expect(retryAfterSeconds(-5, 60)).toBe(1);
    expect(retryAfterSeconds(12.01, 60)).toBe(13);
    expect(retryAfterSeconds(60, 60)).toBe(60);
    expect(retryAfterSeconds(3600, 60)).toBe(60);
    expect(retryAfterSeconds(Number.NaN, 60)).toBe(60);
  });
});
