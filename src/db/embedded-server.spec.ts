import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './data-source';
import { LOCK_FILE } from './data-dir-lock';
import { startEmbeddedServer } from './embedded-server';

jest.setTimeout(120_000);

describe('the embedded engine on its own thread', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'embedded-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the event loop free while a long statement runs, and keeps data across close and reopen', async () => {
    const db = await openDatabase({ databaseUrl: null, dataDir: dir, databasePoolSize: 1 });
    try {
      await db.dataSource.query('CREATE TABLE kept (v text)');
      await db.dataSource.query("INSERT INTO kept VALUES ('before close')");

      // A statement that keeps PGlite busy for a good while. On the service's own thread the
      // event loop would not turn until it finished; on the engine's thread timers keep firing.
      let ticks = 0;
      let longestGap = 0;
      let last = Date.now();
      const timer = setInterval(() => {
        const now = Date.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
        ticks++;
      }, 10);
      const started = Date.now();
      const [row] = await db.dataSource.query('SELECT count(*)::int AS n FROM generate_series(1, 3000000) g WHERE md5(g::text) LIKE $1', ['0%']);
      const took = Date.now() - started;
      clearInterval(timer);
      expect(row.n).toBeGreaterThan(150_000);
      expect(took).toBeGreaterThan(300);
      expect(ticks).toBeGreaterThan(took / 10 / 4);
      expect(longestGap).toBeLessThan(Math.min(250, took / 2));
    } finally {
      await db.close();
    }
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    const again = await openDatabase({ databaseUrl: null, dataDir: dir, databasePoolSize: 1 });
    try {
      expect(await again.dataSource.query('SELECT v FROM kept')).toEqual([{ v: 'before close' }]);
    } finally {
      await again.close();
    }
  });

  it('rejects with the engine\'s reason when the database cannot open', async () => {
    // A file where the data directory should be: PGlite cannot create its cluster there.
    const blocked = join(dir, 'not-a-directory');
    writeFileSync(blocked, 'x');
    const opening = startEmbeddedServer({ dataDir: blocked, socketPath: join(dir, 's.sock'), onUnexpectedExit: () => undefined, startTimeoutMs: 60_000 });
    // The engine's own reason (an Emscripten ErrnoError, which has no message), not "[object Object]".
    await expect(opening).rejects.toThrow(`The embedded database in ${blocked} could not open: ErrnoError`);
    await expect(opening).rejects.not.toThrow('[object Object]');
  });
});
