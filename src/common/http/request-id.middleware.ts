import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from 'src/common/context/request-context';

/**
 * compat.md: a client's X-Request-ID is echoed exactly as sent when it can be a header value,
 * whatever it looks like (`'; DROP TABLE episodes; --` is a fine id): clients correlate their
 * own logs with ours by it. Printable ASCII (space included) up to 4,000 characters; a value
 * with control characters or bytes outside ASCII, or a longer one, is replaced by a generated
 * id. Safety comes from where the id goes, not from its shape: logs are JSON lines (escaped by
 * pino), error bodies are JSON, and the header gets back the bytes the client sent.
 */
export const MAX_REQUEST_ID_LENGTH = 4000;
const PRINTABLE_REQUEST_ID = new RegExp(`^[\\x20-\\x7E]{1,${MAX_REQUEST_ID_LENGTH}}$`);

export function acceptableRequestId(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '' && PRINTABLE_REQUEST_ID.test(value);
}

export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.header('x-request-id');
  const requestId = acceptableRequestId(incoming) ? incoming : randomUUID();
  (req as Request & { id: string }).id = requestId;
  res.setHeader('X-Request-ID', requestId);
  RequestContext.run({ requestId, tenantId: null }, next);
}
