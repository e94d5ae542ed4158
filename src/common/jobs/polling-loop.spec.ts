import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { PollingLoop } from './polling-loop';
import { SingleFlight } from './single-flight';

function quietLogger(): { logger: Logger; warns: string[]; logs: string[] } {
  const warns: string[] = [];
  const logs: string[] = [];
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation((_meta: unknown, msg?: unknown) => void warns.push(String(msg)));
  jest.spyOn(logger, 'log').mockImplementation((msg: unknown) => void logs.push(String(msg)));
  return { logger, warns, logs };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('PollingLoop', () => {
  it('goes again at once while a round reports more work, then sleeps', async () => {
    const { logger } = quietLogger();
    let rounds = 0;
    const loop = new PollingLoop('w', logger, 60_000, async () => ++rounds < 4);
    loop.start();
    for (let i = 0; i < 20 && rounds < 4; i++) await tick();
    await tick();
    // Rounds 1–3 said "more"; round 4 did not, so the loop now sleeps for a minute.
    expect(rounds).toBe(4);
    await loop.stop();
  });

  it('stop wakes a sleeping loop at once and runs no further round', async () => {
    const { logger } = quietLogger();
    let rounds = 0;
    const loop = new PollingLoop('w', logger, 60_000, async () => {
      rounds++;
      return false;
    });
    loop.start();
    await tick();
    const t0 = Date.now();
    await loop.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(rounds).toBe(1);
    expect(loop.isStopping).toBe(true);
  });

  it('logs a failing round once, keeps polling, and says when it recovered', async () => {
    const { logger, warns, logs } = quietLogger();
    let rounds = 0;
    const loop = new PollingLoop('w', logger, 1, async () => {
      rounds++;
      if (rounds <= 3) throw new Error('connection refused');
      return false;
    });
    loop.start();
    for (let i = 0; i < 50 && rounds < 5; i++) await tick();
    await loop.stop();
    expect(warns).toEqual(['w round failed; retrying']);
    expect(logs).toEqual(['w recovered']);
  });

  it('wake runs a round at once instead of after the poll interval, also when it comes mid-round', async () => {
    const { logger } = quietLogger();
    let rounds = 0;
    let release: (() => void) | null = null;
    const loop = new PollingLoop('w', logger, 60_000, async () => {
      rounds++;
      if (rounds === 2) await new Promise<void>((r) => (release = r));
      return false;
    });
    loop.start();
    await tick();
    expect(rounds).toBe(1); // now asleep for a minute
    loop.wake();
    await tick();
    expect(rounds).toBe(2); // round 2 is running and waits
    loop.wake(); // arrives mid-round
    release!();
    await tick();
    await tick();
    expect(rounds).toBe(3);
    await loop.stop();
  });

  it('stop before start resolves at once', async () => {
    const { logger } = quietLogger();
    const loop = new PollingLoop('w', logger, 1, async () => false);
    await expect(loop.stop()).resolves.toBeUndefined();
    expect(loop.isRunning).toBe(false);
  });

  it('every: the first run one interval after start, then one per interval, never overlapping', async () => {
    const { logger } = quietLogger();
    let runs = 0;
    let active = 0;
    let overlapped = false;
    let firstRunAt: number | null = null;
    const loop = PollingLoop.every('task', logger, 30, async () => {
      firstRunAt ??= performance.now();
      overlapped ||= active > 0;
      active++;
      runs++;
      await new Promise((r) => setTimeout(r, 20));
      active--;
    });
    // Timed rather than counted in ticks: a pause of the test process (GC under a loaded run)
    // may let the 30 ms timer fire before a 5 ms tick does, yet the first run must still wait
    // one interval. (libuv's millisecond clock may put a timer up to 1 ms before this clock.)
    const startedAt = performance.now();
    loop.start();
    try {
      expect(runs).toBe(0);
      for (let i = 0; i < 100 && runs < 3; i++) await tick();
      expect(runs).toBeGreaterThanOrEqual(3);
      expect(firstRunAt! - startedAt).toBeGreaterThanOrEqual(29);
      expect(overlapped).toBe(false);
    } finally {
      // A failed expectation must not leave the loop's timer keeping jest alive.
      await loop.stop();
    }
    expect(loop.isRunning).toBe(false);
  });
});

describe('SingleFlight', () => {
  it('joins a run in progress and starts a new one after it ended', async () => {
    const flight = new SingleFlight<number>();
    let started = 0;
    let release: (() => void) | null = null;
    const work = () => new Promise<number>((r) => {
      started++;
      release = () => r(started);
    });
    const a = flight.run(work);
    const b = flight.run(work);
    expect(flight.running).toBe(true);
    release!();
    expect(await a).toBe(1);
    expect(await b).toBe(1);
    expect(flight.running).toBe(false);
    const c = flight.run(work);
    release!();
    expect(await c).toBe(2);
  });

  it('settled waits for the run and never rejects', async () => {
    const flight = new SingleFlight<void>();
    const failing = flight.run(() => Promise.reject(new Error('down')));
    await expect(flight.settled()).resolves.toBeUndefined();
    await expect(failing).rejects.toThrow('down');
    await expect(flight.settled()).resolves.toBeUndefined();
  });
});

describe('PollingLoop in the app timer registry (@nestjs/schedule)', () => {
  it('holds its sleeping timer under its name, and none once stopped', async () => {
    const { logger } = quietLogger();
    const registry = new SchedulerRegistry();
    let rounds = 0;
    const loop = PollingLoop.every('hourly thing', logger, 3_600_000, async () => void rounds++, { delayFirstRound: false });
    loop.start(registry);
    for (let i = 0; i < 20 && rounds < 1; i++) await tick();
    await tick();
    expect(rounds).toBe(1);
    expect(registry.getTimeouts()).toEqual(['hourly thing']);
    await loop.stop();
    expect(registry.getTimeouts()).toEqual([]);
  });

  it('a wake takes the timer out of the registry and the next sleep puts one back', async () => {
    const { logger } = quietLogger();
    const registry = new SchedulerRegistry();
    let rounds = 0;
    const loop = new PollingLoop('worker', logger, 3_600_000, async () => {
      rounds++;
      return false;
    });
    loop.start(registry);
    for (let i = 0; i < 20 && rounds < 1; i++) await tick();
    loop.wake();
    for (let i = 0; i < 20 && rounds < 2; i++) await tick();
    await tick();
    expect(rounds).toBe(2);
    expect(registry.getTimeouts()).toEqual(['worker']);
    await loop.stop();
    expect(registry.doesExist('timeout', 'worker')).toBe(false);
  });
});
