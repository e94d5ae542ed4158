import { Writable } from 'node:stream';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from 'src/app.module';
import { setProcessLogStream } from 'src/common/logging/log-stream.module';
import type { AppConfig } from 'src/config/app-config';
import { serveMcpOverStdio } from 'src/modules/mcp/mcp-stdio';
import { parseCliArgs } from './cli-args';


/**
 * `mcp`: the MCP server on stdin/stdout. The whole service runs in this process (database,
 * workers) but no HTTP server. stdout carries only protocol messages: logs go to stderr, and
 * anything else written to process.stdout is diverted there too.
 */
export async function mcpCommand(config: AppConfig, args: string[]): Promise<number> {
  let flag: string | undefined;
  try {
    flag = parseCliArgs(args, { tenant: { type: 'string' } }).values.tenant;
  } catch (err) {
    if (!(err as Error).message.startsWith('--tenant')) throw err;
    flag = '';
  }
  if (flag !== undefined && (flag === '' || flag.length > 256)) {
    process.stderr.write('--tenant needs a tenant id (1-256 characters)\n');
    return 1;
  }
  const tenant = flag ?? (config.mcpTenant || null);
  if (config.requireTenant && tenant === null) {
    process.stderr.write('SERVICE_REQUIRE_TENANT is on: give the tenant with --tenant or SERVICE_MCP_TENANT\n');
    return 1;
  }

  const protocolWrite = process.stdout.write.bind(process.stdout);
  const output = new Writable({ write: (chunk, encoding, done) => void protocolWrite(chunk, encoding, done) });
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  setProcessLogStream(process.stderr);

  const app = await NestFactory.createApplicationContext(AppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  const stop = () => process.stdin.destroy();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    // Without REQUIRE_TENANT a tenant is still honoured when given: the agent asked for that scope.
    await serveMcpOverStdio(app, tenant, process.stdin, output);
  } finally {
    await app.close();
  }
  return 0;
}
