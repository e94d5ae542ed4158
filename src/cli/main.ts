import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';
import { loadConfig } from 'src/config/app-config';
import { renderConfigReference } from 'src/config/config-docs';
import { parseCliArgs } from './cli-args';
import { EMBEDDINGS_USAGE, embeddingsCommand } from './embeddings.command';
import { jobsCommand } from './jobs.command';
import { KEYS_USAGE, keysCommand } from './keys.command';
import { mcpCommand } from './mcp.command';
import { migrateCommand, preflightCommand } from './migrate.command';
import { openapiCommand } from './openapi.command';
import { SNAPSHOT_USAGE, snapshotCommand } from './snapshot.command';
import { EXPORT_USAGE, exportCommand, IMPORT_USAGE, importCommand } from './transfer.command';
import { WEBHOOKS_USAGE, webhooksCommand } from './webhooks.command';

/**
 * Operator command line: `node dist/src/cli/main.js <command> [args]` (or `npm run cli -- …`).
 * Each command prints progress to stderr and its result to stdout, and exits non-zero on failure.
 */
interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  'config-docs': {
    summary: 'Write the configuration reference generated from the settings schema (default docs/configuration.md).',
    usage: 'config-docs [--out FILE]',
    run: async (args) => {
      const out = parseCliArgs(args, { out: { type: 'string' } }).values.out ?? 'docs/configuration.md';
      writeFileSync(out, renderConfigReference());
      process.stderr.write(`wrote ${out}\n`);
      return 0;
    },
  },
  migrate: {
    summary: 'Schema migrations: upgrade head | upgrade +N | upgrade <rev> [--sql] | downgrade <rev|-N|base> [--sql] | current | history',
    usage: 'migrate upgrade head [--sql]\nmigrate upgrade +1\nmigrate downgrade 0010 [--sql]\nmigrate current\nmigrate history',
    run: (args) => migrateCommand(config(), args),
  },
  preflight: {
    summary: 'Before/after an upgrade: current revision, expected head, pending count, GO/NO-GO (exit 0 = GO, 2 = NO-GO).',
    usage: 'preflight',
    run: () => preflightCommand(config()),
  },
  jobs: {
    summary: 'Compile jobs: reset-orphaned puts jobs running longer than N minutes (default 30) whose lease lapsed back to pending (failed past COMPILE_JOB_MAX_ATTEMPTS); requeue-failed puts failed jobs back to pending.',
    usage: 'jobs reset-orphaned [--older-than-minutes N] | jobs requeue-failed [--id ID]...',
    run: (args) => jobsCommand(config(), args),
  },
  embeddings: {
    summary: 'Embeddings: backfill embeds memories stored without an embedding (provider was unavailable), oldest first.',
    usage: EMBEDDINGS_USAGE,
    run: (args) => embeddingsCommand(config(), args),
  },
  snapshot: {
    summary: 'Snapshots: create one from a subject (under _snapshot/{name}/v{version}), list them, restore one into a subject.',
    usage: SNAPSHOT_USAGE,
    run: (args) => snapshotCommand(config(), args),
  },
  export: {
    summary: 'Stream a subject\'s export document (format 1.0, checksummed) to a file or stdout.',
    usage: EXPORT_USAGE,
    run: (args) => exportCommand(config(), args),
  },
  import: {
    summary: 'Import an export document file (checks version, checksum and, unless --no-preserve-ids, id conflicts).',
    usage: IMPORT_USAGE,
    run: (args) => importCommand(config(), args),
  },
  webhooks: {
    summary: 'Webhook outbox: requeue-dead puts dead letters (all, --tenant T, or each --id ID) back in the queue with attempts reset.',
    usage: WEBHOOKS_USAGE,
    run: (args) => webhooksCommand(config(), args),
  },
  keys: {
    summary: 'Stored API keys: create (bound to a role and optionally a tenant), list, rotate, revoke; no restart needed.',
    usage: KEYS_USAGE,
    run: (args) => keysCommand(config(), args),
  },
  mcp: {
    summary: 'MCP server on stdin/stdout for local agents (tools: ingest, compile, context, search, timeline, support); --tenant T or SERVICE_MCP_TENANT scopes it.',
    usage: 'mcp [--tenant TENANT]',
    run: (args) => mcpCommand(config(), args),
  },
  openapi: {
    summary: 'Write the OpenAPI document of this build (default openapi.json).',
    usage: 'openapi [--out FILE]',
    run: async (args) => {
      const out = parseCliArgs(args, { out: { type: 'string' } }).values.out ?? 'openapi.json';
      writeFileSync(out, (await openapiCommand()) + '\n');
      process.stderr.write(`wrote ${out}\n`);
      return 0;
    },
  },
};

function config() {
  loadDotenv({ quiet: true });
  return loadConfig(process.env);
}

function help(): string {
  const lines = ['Usage: memory-service <command> [options]', '', 'Commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(18)} ${c.summary}`);
  lines.push('', 'Run `<command> --help` for its usage.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`unknown command ${JSON.stringify(name)}\n\n${help()}\n`);
    return 1;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${command.summary}\n\nUsage:\n${command.usage.split('\n').map((l) => `  ${l}`).join('\n')}\n`);
    return 0;
  }
  return command.run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
