import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { envelope } from 'src/common/errors/all-exceptions.filter';
import { ErrorCode } from 'src/common/errors/error-codes';

/**
 * Node's HTTP parser answers requests it cannot parse (headers or URL over the 16 KiB limit,
 * malformed request lines) itself, with a bare status and no body, before Express or Nest run.
 * This gives those answers the contract's envelope and an X-Request-ID like every other error.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', ErrorCode.PayloadTooLarge, 'Request headers (the URL included) exceed the size limit.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', ErrorCode.ValidationError, 'The request was not received in time.']
        : [400, 'Bad Request', ErrorCode.ValidationError, 'Malformed HTTP request.'];
  const requestId = randomUUID();
  const body = JSON.stringify(envelope(code, message, null, requestId));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
