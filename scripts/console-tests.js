#!/usr/bin/env node
/**
 * The console's tests, in one node:test run so its `# pass` / `# fail` lines are one count:
 * component tests (console/test/*.test.tsx, compiled with tsc, rendered with
 * preact-render-to-string) and the browser end-to-end suite (console/test/e2e.test.mjs: the built
 * service on the embedded engine, driven in headless Chromium). Needs `npm run build` first.
 */
const { spawnSync } = require('node:child_process');
const { mkdirSync, readdirSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const out = join(root, 'console', 'test-dist');
rmSync(out, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'console', 'tsconfig.test.json')], { stdio: 'inherit' });
if (tsc.status !== 0) {
  console.log('# pass 0\n# fail 1');
  process.exit(1);
}
mkdirSync(out, { recursive: true });
// The compiled files are ES modules (import/export); the root package is CommonJS. The root dir is
// the repository (the console imports the typed client from clients/typescript/src), so the
// console's tests land under test-dist/console/test.
writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
const tests = join(out, 'console', 'test');
const component = readdirSync(tests).filter((f) => f.endsWith('.test.js')).map((f) => join(tests, f));
const files = process.argv.includes('--components-only') ? component : [...component, join(root, 'console', 'test', 'e2e.test.mjs')];
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], { stdio: 'inherit', cwd: root });
process.exit(run.status ?? 1);
