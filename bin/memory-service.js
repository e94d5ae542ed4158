#!/usr/bin/env node
'use strict';
/**
 * The installed command: `memory-service start` runs the server; every other command is the
 * operator command line (migrate, preflight, mcp, export, import, snapshot, …; run it without
 * arguments for the list). Works from a checkout after `npm run build`, from `npm install` of
 * the packed tarball, and through `npx`.
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const [command, ...rest] = process.argv.slice(2);

if (command === 'start') {
  // The heap cap of `npm run start:prod` and the image, unless NODE_OPTIONS already sets one.
  const heap = /--max-old-space-size/.test(process.env.NODE_OPTIONS || '') ? [] : ['--max-old-space-size=192'];
  const child = spawn(process.execPath, [...heap, join(root, 'dist', 'src', 'main.js'), ...rest], { stdio: 'inherit' });
  // The server drains on SIGTERM/SIGINT; pass them on and exit with its status.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (command === '--version' || command === 'version') {
  process.stdout.write(`${require(join(root, 'package.json')).version}\n`);
} else {
  process.argv = [process.argv[0], join(root, 'dist', 'src', 'cli', 'main.js'), ...process.argv.slice(2)];
  require(join(root, 'dist', 'src', 'cli', 'main.js'));
}
