import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RequestContext } from 'src/common/context/request-context';
import { AppError } from './app-error';
import { databaseInputProblem, isDatabaseInputError, sqlState } from './database-input-error';
import { isDatabaseUnavailable } from './database-unavailable';
import { ERROR_STATUS, ErrorCode } from './error-codes';

/** Nest's own HTTP exceptions (unknown routes, ...) mapped onto our codes. */
const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.ValidationError,
  401: ErrorCode.MissingApiKey,
  403: ErrorCode.InvalidApiKey,
  404: ErrorCode.NotFound,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.UnsupportedMediaType,
  422: ErrorCode.ValidationError,
  429: ErrorCode.RateLimited,
  503: ErrorCode.ServiceUnavailable,
};

export interface ErrorEnvelope {
  error: { code: string; message: string; details: unknown; request_id: string };
}

export function envelope(code: string, message: string, details: unknown, requestId: string): ErrorEnvelope {
  return { error: { code, message, details: details ?? null, request_id: requestId } };
}

/**
 * Only the error's identity goes to the log: driver errors carry the query parameters,
 * which hold payloads and must not be logged.
 */
function loggableError(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: String(e) };
  const { code, routine } = e as Error & { code?: string; routine?: string };
  return { type: e.constructor.name, message: e.message, code, routine, stack: e.stack };
}

/** The one place errors become responses: every error is the contract's envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    const requestId = RequestContext.current()?.requestId ?? String(res.getHeader('X-Request-ID') ?? '');
    let status: number;
    let body: ErrorEnvelope;
    let headers: Record<string, string> = {};

    if (exception instanceof AppError) {
      status = ERROR_STATUS[exception.code];
      body = envelope(exception.code, exception.message, exception.details, requestId);
      headers = exception.headers;
    } else if (exception instanceof HttpException && exception.getStatus() < 500) {
      status = exception.getStatus();
      const code = HTTP_STATUS_CODES[status] ?? ErrorCode.ValidationError;
      const message = status === 404 ? `No route for ${req.method} ${req.path}` : exception.message;
      body = envelope(code, message, null, requestId);
    } else if (exception instanceof HttpException && exception.getStatus() === 503) {
      status = 503;
      body = envelope(ErrorCode.ServiceUnavailable, 'Service unavailable.', null, requestId);
    } else if (isDatabaseInputError(exception)) {
      // A value validation let through and the column refused: the client's input, so a 422
      // naming the field (never a 5xx that clients retry). Logged to close the validation gap.
      status = 422;
      const problem = databaseInputProblem(exception, { params: req.params, query: req.query, body: req.body });
      this.logger.warn({ err: { code: sqlState(exception), routine: (exception as { routine?: string }).routine }, loc: problem.loc }, 'database refused an input value');
      body = envelope(ErrorCode.ValidationError, 'Request validation failed', [problem], requestId);
    } else if (isDatabaseUnavailable(exception)) {
      // An outage, not a bug: clients retry on 503 (Retry-After), and no stack per request.
      status = 503;
      this.logger.warn({ err: { type: (exception as Error).constructor.name, message: (exception as Error).message, code: (exception as { code?: string }).code } }, 'database unavailable');
      body = envelope(ErrorCode.ServiceUnavailable, 'Database unavailable; retry later.', null, requestId);
      headers = { 'Retry-After': '1' };
    } else {
      status = 500;
      // Logged once with the stack; the client gets no internals.
      this.logger.error({ err: loggableError(exception) }, 'unhandled error');
      body = envelope(ErrorCode.InternalError, 'Internal server error.', null, requestId);
    }
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  }
}
