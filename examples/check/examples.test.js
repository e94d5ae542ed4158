// Checks what CI can check without a model: the MCP configurations name a command and a
// transport the service really has. The two programs are type-checked (`npm run typecheck`);
// they need an OpenAI-compatible model server to run, so CI does not run them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (file) => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8'));

test('the stdio MCP configuration runs the packaged `memory-service mcp` command', () => {
  const server = read('../mcp-desktop/stdio.json').mcpServers.memory;
  assert.equal(server.command, 'npx');
  assert.deepEqual(server.args.slice(-2), ['memory-service', 'mcp']);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.bin['memory-service'], 'bin/memory-service.js');
  assert.match(readFileSync(new URL('../../src/cli/main.ts', import.meta.url), 'utf8'), /^\s{2}mcp: \{/m);
});

test('the HTTP MCP configuration points at /mcp with a Bearer key', () => {
  const server = read('../mcp-desktop/http.json').mcpServers.memory;
  assert.equal(new URL(server.url).pathname, '/mcp');
  assert.match(server.headers.Authorization, /^Bearer /);
});
