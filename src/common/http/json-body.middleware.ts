import { AsyncResource } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { findJsonProblem } from './json-safety';

export interface BodyRequest extends Request {
  /** Raised by the parser, thrown later by BodyErrorGuard so auth errors win over body errors. */
  bodyError?: AppError;
  /** The exact body text, kept for routes that need lossless number parsing (import). */
  rawBody?: string;
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json(?:\s*;|$)/i;
const RAW_BODY_ROUTES = new Set(['/admin/import']);

export interface BodyLimits {
  maxBodyBytes: number;
  maxImportBytes: number;
}

/**
 * Our own JSON body parser (Nest's is turned off): it enforces the size limit per route,
 * refuses non-JSON content types, and checks the parsed value for NUL, lone surrogates,
 * non-finite numbers and excessive depth. It never throws; see BodyRequest.bodyError.
 */
export function jsonBodyMiddleware(limits: BodyLimits) {
  return (req: BodyRequest, res: Response, nextInStream: NextFunction): void => {
    // Stream events run outside the request's async context; binding keeps the request id
    // and tenant (AsyncLocalStorage) for everything after the parser.
    const next = AsyncResource.bind(nextInStream);
    const declared = req.headers['content-length'];
    const hasBody = req.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared !== '0');
    if (!hasBody || req.method === 'GET' || req.method === 'HEAD') return next();

    const keepRaw = RAW_BODY_ROUTES.has(req.path);
    const limit = keepRaw ? limits.maxImportBytes : limits.maxBodyBytes;
    const fail = (error: AppError) => {
      req.bodyError = error;
      // The rest of the body is not read; closing the connection keeps it from being parsed
      // as the next request.
      res.setHeader('Connection', 'close');
      next();
    };
    if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
      return fail(new AppError(ErrorCode.UnsupportedMediaType, 'Request body must be JSON (Content-Type: application/json).'));
    }
    const tooLarge = () => new AppError(ErrorCode.PayloadTooLarge, `Request body exceeds the limit of ${limit} bytes.`);
    if (declared !== undefined && Number(declared) > limit) return fail(tooLarge());

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.pause();
        fail(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      if (done) return;
      done = true;
      fail(new AppError(ErrorCode.ValidationError, 'Request body could not be read.'));
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        req.bodyError = new AppError(ErrorCode.ValidationError, 'Request validation failed', [
          { type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${(err as Error).message}` },
        ]);
        return next();
      }
      const problem = findJsonProblem(parsed, ['body']);
      if (problem) {
        req.bodyError = new AppError(ErrorCode.ValidationError, 'Request validation failed', [problem]);
        return next();
      }
      req.body = parsed;
      if (keepRaw) req.rawBody = text;
      next();
    });
  };
}
