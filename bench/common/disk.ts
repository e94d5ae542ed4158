import { closeSync, fdatasyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client as PgClient } from 'pg';
import { summarise, Summary } from './stats';

/**
 * How long the disk under the database takes to make 8 kB durable (write + fdatasync, what a
 * commit's WAL flush costs at least), `count` times in a row: the floor under any durable write's
 * latency in the same run. A receipt's commit cannot return before its WAL is flushed, so when
 * this floor's p95 moves by milliseconds between runs (a shared disk, another process's writes),
 * so does a durable receipt's.
 */
export function flushLatency(dir: string, count = 400): Summary {
  const path = join(dir, `memsvc-flush-probe-${process.pid}`);
  const fd = openSync(path, 'w');
  const page = Buffer.alloc(8192, 1);
  const samples: number[] = [];
  const started = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      // Rewrites a 512 kB ring, as WAL segments are rewritten in place, so the file stops growing.
      writeSync(fd, page, 0, page.length, (i % 64) * page.length);
      const t0 = performance.now();
      fdatasyncSync(fd);
      samples.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
    unlinkSync(path);
  }
  return summarise(samples, performance.now() - started);
}

/**
 * The folder holding the server's data directory (the same disk, without writing inside the
 * server's own files), or null when the server is not on this machine's disk or will not say.
 */
export async function databaseDiskDir(adminUrl: string): Promise<string | null> {
  const pg = new PgClient({ connectionString: adminUrl });
  try {
    await pg.connect();
    const { rows } = await pg.query<{ data_directory: string }>('SHOW data_directory');
    const dir = dirname(rows[0].data_directory);
    // Writable here only when the server is local and this process may write beside it.
    flushLatency(dir, 1);
    return dir;
  } catch {
    return null;
  } finally {
    await pg.end().catch(() => undefined);
  }
}
