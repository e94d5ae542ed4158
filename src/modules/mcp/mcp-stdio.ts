import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { INestApplicationContext } from '@nestjs/common';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { currentCtx, RequestContext } from 'src/common/context/request-context';
import { withContractErrors } from './mcp-errors';
import { McpService } from './mcp.service';

/**
 * Serves MCP on a pair of streams (the process's stdin/stdout for local agents) from an
 * application context without HTTP. There is no API key on this path: whoever can start the
 * process already holds its configuration. Each tool call runs in a context of its own, scoped
 * to `tenantId` (null: unscoped, as REST without REQUIRE_TENANT). Resolves when the input ends
 * or the client closes.
 */
export async function serveMcpOverStdio(app: INestApplicationContext, tenantId: string | null, input: Readable, output: Writable): Promise<void> {
  let lastRequestId = '';
  const server = app.get(McpService).createServer({
    transport: 'stdio',
    run: (fn) =>
      RequestContext.run({ requestId: (lastRequestId = `mcp-stdio:${randomUUID()}`), tenantId }, () => fn(currentCtx())),
  });
  const transport = withContractErrors(new StdioServerTransport(input, output), () => lastRequestId);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    input.once('end', () => void transport.close());
    input.once('close', () => void transport.close());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
