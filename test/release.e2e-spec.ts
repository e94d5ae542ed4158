import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_VERSION } from 'src/common/version';

const ROOT = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('release: one version, an installable command', () => {
  it('reads the version from package.json everywhere it is reported', () => {
    expect(SERVICE_VERSION).toBe(pkg.version);
    expect(JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')).info.version).toBe(pkg.version);
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## [${pkg.version}]`);
  });

  it('ships a memory-service command in the packed files that runs the built CLI', () => {
    expect(pkg.bin).toEqual({ 'memory-service': 'bin/memory-service.js' });
    expect(pkg.files).toEqual(expect.arrayContaining(['bin/', 'dist/src/', 'dist/migrations/']));
    const run = (...args: string[]) => execFileSync(process.execPath, [join(ROOT, 'bin', 'memory-service.js'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run('--version').trim()).toBe(pkg.version);
    expect(() => run('no-such-command')).toThrow(/Usage: memory-service/);
  });
});
