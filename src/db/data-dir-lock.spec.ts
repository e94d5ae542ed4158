import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from './data-dir-lock';

describe('lockDataDir', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'lock-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the directory for this process and gives it back on release', () => {
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('refuses a directory owned by another live process', () => {
    // The parent of this process (jest's runner or the shell) is alive.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(/in use by process/);
  });

  it('takes over the lock of a process that is gone (killed or crashed)', () => {
    writeFileSync(join(dir, LOCK_FILE), '4194000\n');
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    release();
  });
});
