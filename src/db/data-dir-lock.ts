import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

export const LOCK_FILE = 'pglite.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process owns an embedded (PGlite) data directory: two PGlite instances on the same files
 * would both write them and corrupt the database. `<dataDir>/pglite.lock` holds the owner's pid;
 * a lock whose process is gone (killed, crashed) is taken over. Opening the same directory
 * twice in one process is left to the caller. Returns the release function.
 */
export function lockDataDir(dataDir: string, pid = process.pid): () => void {
  const file = join(dataDir, LOCK_FILE);
  const release = () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(pid)) unlinkSync(file);
    } catch {
      // already gone
    }
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${pid}\n`, { flag: 'wx' });
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(file, 'utf8').trim());
    } catch {
      continue; // removed meanwhile: try again
    }
    if (owner === pid) return () => undefined;
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new DataDirLockedError(
        `the embedded database in ${dataDir} is in use by process ${owner} (one process owns a data directory); stop it first, or delete ${file} if that process is not a memory service`,
      );
    }
    try {
      unlinkSync(file); // stale: its owner is gone
    } catch {
      // another starter took it over first
    }
  }
  throw new DataDirLockedError(`could not lock the embedded database in ${dataDir} (${file} keeps changing)`);
}
