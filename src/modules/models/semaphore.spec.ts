import { Semaphore } from './semaphore';

const tick = () => new Promise((r) => setImmediate(r));

describe('Semaphore', () => {
  it('never runs more than the limit at once and serves waiters in order', async () => {
    const sem = new Semaphore(2);
    const started: number[] = [];
    const gates: (() => void)[] = [];
    let peak = 0;
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      sem.run(async () => {
        started.push(i);
        peak = Math.max(peak, sem.inFlight);
        await new Promise<void>((r) => gates.push(r));
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates.shift()!();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    while (gates.length > 0 || started.length < 5) {
      gates.shift()?.();
      await tick();
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(sem.inFlight).toBe(0);
  });

  it('releases the slot when the task throws', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await sem.run(async () => 'ok')).toBe('ok');
    expect(sem.inFlight).toBe(0);
  });

  it('rejects a limit below one', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
