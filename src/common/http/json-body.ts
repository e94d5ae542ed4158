import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { SetMetadata } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { findJsonProblem, scanJsonShape } from './json-safety';

/**
 * Most JSON values an import document may hold: at about 50 heap bytes per parsed value (a
 * number keeps its text), 500,000 bound the parsed document to some 25 MB beside its strings.
 */
export const MAX_IMPORT_VALUES = 500_000;

export interface BodyRequest extends Request {
  /** Set once the body has been read (or found absent), so it is never read twice. */
  bodyRead?: boolean;
  /** The large part of a spooled body (see {@link SpooledBody}), kept out of the validation pipe. */
  spooledValue?: unknown;
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json(?:\s*;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const SPOOLED_BODY = 'spooledBody';

/**
 * A route's own parser for a spooled body: `body` (small) goes to `@Body()` and the validation
 * pipe, `large` to `req.spooledValue` untouched, so the pipe neither copies nor walks it.
 */
export type SpoolParser = (text: string) => { body: unknown; large?: unknown };

/**
 * The route takes a large document (MAX_IMPORT_BYTES, not MAX_BODY_BYTES): its body is written to
 * a temporary file while it arrives (no buffers held for a slow upload), read back once as text
 * and handed to `parse`; the text is dropped as soon as it is parsed (one copy at a time).
 */
export const SpooledBody = (parse: SpoolParser) => SetMetadata(SPOOLED_BODY, parse);

export interface BodyLimits {
  maxBodyBytes: number;
  maxImportBytes: number;
}

/**
 * Heap the request bodies being handled at once in this process may cost, by the estimate of
 * {@link bodyHeapCost}; a body that would pass it waits for nothing: 503 with Retry-After. An
 * import reserves all of it (one at a time, alone). docs/operations.md "Memory" has the sums.
 */
export const BODY_HEAP_BUDGET = 64 * 1024 * 1024;
/** Measured worst cases under start:prod (test/reliability/hostile-bodies): a parsed value with its copies. */
const HEAP_BYTES_PER_VALUE = 160;
let bodyHeapInUse = 0;

/** The text (UTF-16 at worst), the parsed strings and the pipe's copy of them, and the values. */
export function bodyHeapCost(textLength: number, values: number): number {
  return textLength * 2 * 3 + values * HEAP_BYTES_PER_VALUE;
}

/** Reserves `bytes` of the budget until the response is finished or aborted; false when it is spent. */
function reserveHeap(bytes: number, res: Response): boolean {
  if (bodyHeapInUse > 0 && bodyHeapInUse + bytes > BODY_HEAP_BUDGET) return false;
  bodyHeapInUse += bytes;
  res.once('close', () => (bodyHeapInUse -= bytes));
  return true;
}

const busy = () => new AppError(ErrorCode.ServiceUnavailable, 'Too many large requests in progress; retry shortly.', null, { 'Retry-After': '1' });

export function hasBody(req: Request): boolean {
  if (req.method === 'GET' || req.method === 'HEAD' || !req.headers) return false;
  const declared = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared !== '0');
}

/** What a refusal discards by default when the caller sent a body of legal size. */
export const DEFAULT_DISCARD_BYTES = 2 * 1024 * 1024;
/** How long a closing connection keeps discarding the refused body before it is reset anyway. */
export const LINGER_MS = 5_000;

/**
 * Whatever is refused before the body is read (authentication, routing, a 413 on the declared
 * length) leaves the body on the socket and closes the connection after the answer, so the
 * refused body is never buffered or parsed. A plain close while the caller is still writing
 * makes its kernel reset the connection, and the client sees EPIPE instead of the 401; so a
 * declared length within `discardBytes` gets the staged close of RFC 9112 §9.6: the answer,
 * a half-close, then the rest of the body read and thrown away (bounded by the declared length
 * and LINGER_MS) before the socket is destroyed. An unsized or larger body is closed at once.
 */
export function closeIfBodyUnread(req: BodyRequest, res: Response, discardBytes = DEFAULT_DISCARD_BYTES): void {
  if (req.bodyRead || req.complete || !hasBody(req) || res.headersSent || typeof res.setHeader !== 'function') return;
  res.setHeader('Connection', 'close');
  const declared = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= discardBytes) lingerOnClose(req);
}

/** Replaces, for this one socket, Node's close-after-answer with the staged close described above. */
function lingerOnClose(req: BodyRequest): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (!socket || typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = function staged(this: Socket) {
    if (this.writable) this.end();
    const stop = () => this.destroy();
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // Node has already resumed the request to discard it; its end is the end of the body.
    req.once('end', stop);
    req.once('error', stop);
    if (req.complete) stop();
  };
}

/**
 * Reads and parses the JSON body, called by JsonBodyGuard after the API key, role, tenant and
 * rate limit have been checked, and only for a route that exists (docs/operations.md "Memory").
 * Order of refusals: media type, declared size, size as it arrives, UTF-8, shape (depth and
 * value count, on the text), syntax, then the parsed values (NUL, surrogates, non-finite).
 */
export async function readJsonBody(req: BodyRequest, res: Response, limits: BodyLimits, spooled?: SpoolParser): Promise<void> {
  if (req.bodyRead) return;
  req.bodyRead = true;
  if (!hasBody(req)) return;
  const limit = spooled ? limits.maxImportBytes : limits.maxBodyBytes;
  const refuse = (error: AppError): AppError => {
    // The rest of the body is not read; closing keeps it from being parsed as the next request.
    res.setHeader('Connection', 'close');
    return error;
  };
  if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
    throw refuse(new AppError(ErrorCode.UnsupportedMediaType, 'Request body must be JSON (Content-Type: application/json).'));
  }
  const tooLarge = () => refuse(new AppError(ErrorCode.PayloadTooLarge, `Request body exceeds the limit of ${limit} bytes.`));
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) throw tooLarge();
  if (spooled && !reserveHeap(BODY_HEAP_BUDGET, res)) throw refuse(busy());

  const bytes = spooled ? await spoolToFile(req, limit, tooLarge) : await collect(req, limit, tooLarge);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError(ErrorCode.InvalidEncoding, 'Request body is not valid UTF-8.');
  }
  if (spooled) {
    // Its own (lossless) parser recurses: the depth limit still applies; the value cap does not,
    // MAX_IMPORT_BYTES bounds an import instead.
    const { problem } = scanJsonShape(text, MAX_IMPORT_VALUES);
    if (problem) throw new AppError(ErrorCode.ValidationError, 'Request validation failed', [problem]);
    let parsed: ReturnType<SpoolParser>;
    try {
      parsed = spooled(text);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw AppError.validation(['body'], `JSON decode error: ${(err as Error).message}`, 'json_invalid');
    }
    req.body = parsed.body;
    req.spooledValue = parsed.large;
    return;
  }
  const { problem, values } = scanJsonShape(text);
  if (problem) throw new AppError(ErrorCode.ValidationError, 'Request validation failed', [problem]);
  if (!reserveHeap(bodyHeapCost(text.length, values), res)) throw busy();
  req.body = parseJson(text);
}

/** JSON text (already scanned, see {@link scanJsonShape}) to a value, refusing what the database cannot hold. */
function parseJson(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AppError(ErrorCode.ValidationError, 'Request validation failed', [
      { type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${(err as Error).message}` },
    ]);
  }
  const problem = findJsonProblem(parsed, ['body']);
  if (problem) throw new AppError(ErrorCode.ValidationError, 'Request validation failed', [problem]);
  return parsed;
}

function collect(req: Request, limit: number, tooLarge: () => AppError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: AppError | null) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      if (err) {
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(tooLarge());
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(null));
    req.once('error', () => finish(new AppError(ErrorCode.ValidationError, 'Request body could not be read.')));
  });
}

/**
 * Streams the body to a private temporary file, then reads it back once; the file is removed.
 * Piped by hand rather than with `pipeline`, which would destroy the request (and its socket)
 * on the size limit before the 413 could be sent.
 */
async function spoolToFile(req: Request, limit: number, tooLarge: () => AppError): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'memsvc-body-'));
  const file = join(dir, 'body.json');
  try {
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(file, { mode: 0o600 });
      let size = 0;
      let failed: AppError | null = null;
      const fail = (err: AppError) => {
        if (failed) return;
        failed = err;
        req.unpipe(out);
        req.pause();
        out.destroy();
        reject(err);
      };
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) fail(tooLarge());
      });
      req.once('error', () => fail(new AppError(ErrorCode.ValidationError, 'Request body could not be read.')));
      out.once('error', () => fail(new AppError(ErrorCode.ServiceUnavailable, 'The request body could not be stored; retry later.')));
      out.once('finish', () => {
        if (!failed) resolve();
      });
      req.pipe(out);
    });
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
