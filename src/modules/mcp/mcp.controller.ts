import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { withContractErrors } from './mcp-errors';
import { McpService } from './mcp.service';

/**
 * MCP over streamable HTTP at /mcp, behind the same global guards as REST (rate limit, API key,
 * tenant header), so an agent has exactly a REST client's rights.
 *
 * Stateless: each POST gets a fresh server and transport and no session id. Every call then
 * runs in its own request's context (tenant, request id), any replica can answer any request,
 * and nothing is kept between requests. Answers are plain JSON (enableJsonResponse): no tool
 * streams, and JSON passes every proxy. GET (a server-to-client stream) and DELETE (end a
 * session) have nothing to do without sessions: 405, as the transport spec allows.
 *
 * Left out of the OpenAPI document: JSON-RPC, described in docs/mcp.md.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  async handle(@ReqCtx() ctx: Ctx, @Req() req: Request, @Res() res: Response): Promise<void> {
    // JSON-RPC batches were removed in MCP 2025-06-18; the SDK would still run every message of
    // an array, concurrently, for one request's rate-limit hit.
    if (Array.isArray(req.body)) return refuseBatch(res);
    const server = this.mcp.createServer({ transport: 'http', run: (fn) => fn(ctx) });
    const transport = withContractErrors(new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }), () => ctx.requestId);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  @Get()
  @HttpCode(405)
  stream(@Res() res: Response): void {
    methodNotAllowed(res);
  }

  @Delete()
  @HttpCode(405)
  endSession(@Res() res: Response): void {
    methodNotAllowed(res);
  }
}

function refuseBatch(res: Response): void {
  res.status(400).json({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one message per request.' }, id: null });
}

function methodNotAllowed(res: Response): void {
  res.setHeader('Allow', 'POST');
  res.status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; send JSON-RPC requests with POST.' }, id: null });
}
