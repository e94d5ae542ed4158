#!/usr/bin/env node
/**
 * The full test suite: jest once on the embedded engine (PGlite) and once on PostgreSQL
 * (TEST_PG_ADMIN_URL, default the local server). Extra arguments go to jest.
 * TEST_ENGINES=pglite (or postgres) runs one engine. Prints `N passed, N failed` last.
 */
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

const engines = (process.env.TEST_ENGINES || 'pglite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
const extra = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'memsvc-tests-'));
let passed = 0;
let failed = 0;
let ok = true;
const lines = [];

for (const engine of engines) {
  const out = join(dir, `${engine}.json`);
  console.log(`\n=== tests on ${engine} ===`);
  const run = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--runInBand', '--json', `--outputFile=${out}`, ...extra],
    { stdio: 'inherit', env: { ...process.env, TEST_ENGINE: engine, NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --experimental-vm-modules`.trim() } },
  );
  let p = 0;
  let f = 0;
  try {
    const r = JSON.parse(readFileSync(out, 'utf8'));
    p = r.numPassedTests;
    // A suite that fails to load counts as one failure, so it cannot hide.
    f = r.numFailedTests + r.numRuntimeErrorTestSuites;
  } catch {
    f = 1;
  }
  if (run.status !== 0 && f === 0) f = 1;
  if (run.status !== 0) ok = false;
  passed += p;
  failed += f;
  lines.push(`${engine}: ${p} passed, ${f} failed`);
}
for (const l of lines) console.log(l);
if (process.env.TEST_SUMMARY_FILE) writeFileSync(process.env.TEST_SUMMARY_FILE, JSON.stringify({ passed, failed }));
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
