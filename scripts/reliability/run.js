#!/usr/bin/env node
/**
 * Long versions of the reliability suites (docs/reliability.md): RELIABILITY_LONG=1 on both
 * engines (TEST_ENGINES to pick one). The build under test is copied first, so rebuilding dist/
 * during a long run does not change it. Extra arguments go to jest (e.g. a suite name).
 * Sizes and the seed can be overridden: RELIABILITY_CASES, RELIABILITY_TRIALS,
 * RELIABILITY_REPLICA_OPS, RELIABILITY_OUTAGES, RELIABILITY_SHUTDOWNS, RELIABILITY_SEED.
 */
const { spawnSync } = require('node:child_process');
const { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { tmpdir } = require('node:os');

const root = resolve(__dirname, '..', '..');
if (!existsSync(join(root, 'dist', 'src', 'main.js'))) {
  console.error('dist/ is missing: run `npx nest build` (npm run test:reliability builds first)');
  process.exit(1);
}
const snap = mkdtempSync(join(tmpdir(), 'memsvc-reliability-build-'));
cpSync(join(root, 'dist'), join(snap, 'dist'), { recursive: true });
for (const name of ['node_modules', 'vendor', 'package.json']) symlinkSync(join(root, name), join(snap, name));
const args = process.argv.slice(2);
const run = spawnSync(process.execPath, [join(root, 'scripts', 'test-both-engines.js'), ...(args.length ? args : ['test/reliability'])], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, RELIABILITY_LONG: process.env.RELIABILITY_LONG ?? '1', RELIABILITY_DIST: join(snap, 'dist') },
});
rmSync(snap, { recursive: true, force: true });
process.exit(run.status ?? 1);
