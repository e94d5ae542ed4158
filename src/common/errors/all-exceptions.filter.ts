import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RequestContext } from 'src/common/context/request-context';
import { BodyRequest, closeIfBodyUnread } from 'src/common/http/json-body';
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

export interface ErrorResponse {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
}

const errorsLogger = new Logger('errors');

/**
 * The one mapping from an error to the contract's envelope, used by the filter and by the
 * authentication gate (which answers before Nest's router, outside the filter's reach).
 */
export function errorResponse(exception: unknown, req: Request, requestId: string, logger: Logger = errorsLogger): ErrorResponse {
  if (exception instanceof AppError) {
    return { status: ERROR_STATUS[exception.code], body: envelope(exception.code, exception.message, exception.details, requestId), headers: exception.headers };
  }
  if (exception instanceof HttpException && exception.getStatus() < 500) {
    const status = exception.getStatus();
    const code = HTTP_STATUS_CODES[status] ?? ErrorCode.ValidationError;
    const message = status === 404 ? `No route for ${req.method} ${req.path}` : exception.message;
    return { status, body: envelope(code, message, null, requestId), headers: {} };
  }
  if (exception instanceof HttpException && exception.getStatus() === 503) {
    return { status: 503, body: envelope(ErrorCode.ServiceUnavailable, 'Service unavailable.', null, requestId), headers: {} };
  }
  if (isDatabaseInputError(exception)) {
    // A value validation let through and the column refused: the client's input, so a 422
    // naming the field (never a 5xx that clients retry). Logged to close the validation gap.
    const problem = databaseInputProblem(exception, { params: req.params, query: req.query, body: req.body });
    logger.warn({ err: { code: sqlState(exception), routine: (exception as { routine?: string }).routine }, loc: problem.loc }, 'database refused an input value');
    return { status: 422, body: envelope(ErrorCode.ValidationError, 'Request validation failed', [problem], requestId), headers: {} };
  }
  if (isDatabaseUnavailable(exception)) {
    // An outage, not a bug: clients retry on 503 (Retry-After), and no stack per request.
    logger.warn({ err: { type: (exception as Error).constructor.name, message: (exception as Error).message, code: (exception as { code?: string }).code } }, 'database unavailable');
    return { status: 503, body: envelope(ErrorCode.ServiceUnavailable, 'Database unavailable; retry later.', null, requestId), headers: { 'Retry-After': '1' } };
  }
  // Logged once with the stack; the client gets no internals.
  logger.error({ err: loggableError(exception) }, 'unhandled error');
  return { status: 500, body: envelope(ErrorCode.InternalError, 'Internal server error.', null, requestId), headers: {} };
}

export function sendError(res: Response, answer: ErrorResponse): void {
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
  res.status(answer.status).json(answer.body);
}

/** The one place errors become responses: every error is the contract's envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = errorsLogger;

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<BodyRequest>();
    const requestId = RequestContext.current()?.requestId ?? String(res.getHeader('X-Request-ID') ?? '');
    closeIfBodyUnread(req, res);
    sendError(res, errorResponse(exception, req, requestId, this.logger));
  }
}
