import { Logger } from '@nestjs/common';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AppError, FieldProblem } from 'src/common/errors/app-error';
import { databaseInputProblem, isDatabaseInputError } from 'src/common/errors/database-input-error';
import { ErrorCode } from 'src/common/errors/error-codes';

const logger = new Logger('mcp');

export interface ToolErrorBody {
  error: { code: string; message: string; details: unknown; request_id: string };
}

function toolError(body: ToolErrorBody): CallToolResult {
  // The text is what a model reads; structuredContent is the same envelope for programs.
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as unknown as Record<string, unknown> };
}

/** Tool arguments are not a body, query or path: validation details say `arguments`. */
function argumentsLoc(details: AppError['details']): AppError['details'] {
  if (!Array.isArray(details)) return details;
  return details.map((d: FieldProblem) => (['body', 'query', 'path'].includes(String(d.loc[0])) ? { ...d, loc: ['arguments', ...d.loc.slice(1)] } : d));
}

/**
 * A thrown error as an MCP tool error (`isError: true`) carrying the contract's envelope, so an
 * agent sees the same codes (`validation_error`, `not_found`, …) as a REST client. Unknown
 * errors become `internal_error` and are logged once; nothing internal reaches the model.
 */
export function toToolError(err: unknown, requestId: string): CallToolResult {
  if (err instanceof AppError) {
    return toolError({ error: { code: err.code, message: err.message, details: argumentsLoc(err.details) ?? null, request_id: requestId } });
  }
  if (isDatabaseInputError(err)) {
    const { type, msg } = databaseInputProblem(err, {});
    return toolError({ error: { code: ErrorCode.ValidationError, message: 'Request validation failed', details: [{ type, loc: ['arguments'], msg }], request_id: requestId } });
  }
  logger.error({ err: { type: (err as Error)?.constructor?.name, message: (err as Error)?.message, stack: (err as Error)?.stack } }, 'mcp tool failed');
  return toolError({ error: { code: ErrorCode.InternalError, message: 'Internal server error.', details: null, request_id: requestId } });
}

const SDK_INPUT_ERROR = /^MCP error -32602: Input validation error: (.*)$/s;
const SDK_UNKNOWN_TOOL = /^MCP error -32602: Tool (.+) (not found|disabled)$/s;

/**
 * The SDK checks tool arguments against the tool's zod schema before our handler runs, and
 * answers a failure with a plain-text tool error. This rewrites those answers, on their way
 * out, into the contract's envelope (`validation_error`, or `not_found` for an unknown tool).
 */
function rewriteSdkToolError(message: JSONRPCMessage, requestId: string): JSONRPCMessage {
  const result = (message as { result?: CallToolResult }).result;
  if (!result || result.isError !== true || result.structuredContent !== undefined) return message;
  const first = result.content?.[0];
  if (!first || first.type !== 'text') return message;
  const input = SDK_INPUT_ERROR.exec(first.text);
  if (input) {
    const body: ToolErrorBody = {
      error: { code: ErrorCode.ValidationError, message: 'Request validation failed', details: [{ type: 'invalid_arguments', loc: ['arguments'], msg: input[1] }], request_id: requestId },
    };
    return { ...message, result: toolError(body) } as JSONRPCMessage;
  }
  const unknown = SDK_UNKNOWN_TOOL.exec(first.text);
  if (unknown) {
    const body: ToolErrorBody = { error: { code: ErrorCode.NotFound, message: `Unknown tool ${unknown[1]}.`, details: null, request_id: requestId } };
    return { ...message, result: toolError(body) } as JSONRPCMessage;
  }
  return message;
}

/** Wraps a transport's `send` so every tool error leaving it carries a contract error code. */
export function withContractErrors<T extends Transport>(transport: T, requestId: () => string): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(rewriteSdkToolError(message, requestId()), options);
  return transport;
}
