import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from 'src/common/project-root';
import { AdvisoryLock, advisoryLockKeySql } from './advisory-locks';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('advisory-lock registry', () => {
  it('is the only code that takes an advisory lock', () => {
    const root = projectRoot();
    const offenders = sources(join(root, 'src'))
      .filter((path) => !path.endsWith(join('common', 'db', 'advisory-locks.ts')))
      .filter((path) => /advisory_(xact_)?(un)?lock|hashtext/i.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path));
    expect(offenders).toEqual([]);
  });

  it('gives every named lock its own key', () => {
    const keys = Object.values(AdvisoryLock).map(advisoryLockKeySql);
    expect(new Set(keys).size).toBe(keys.length);
    // Frozen across versions: see the registry's comment.
    expect(advisoryLockKeySql(AdvisoryLock.Migrations)).toBe('741852963');
    expect(advisoryLockKeySql(AdvisoryLock.CompileJobsOrphans)).toBe(`hashtextextended('memory-service:compile-jobs-orphans', 0)`);
  });
});
