import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { pino, stdSerializers } from 'pino';
import type { DestinationStream, Logger, LoggerOptions } from 'pino';
import { RequestContext } from 'src/common/context/request-context';
import type { AppConfig } from 'src/config/app-config';

const PROBES = new Set(['/healthz', '/readyz', '/health', '/ready']);

/** The URL without its query string. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** What the access logger's `req` binding is given: a request, with Express's fields once it has run. */
type LoggedRequest = IncomingMessage & { originalUrl?: string; path?: unknown };

/** The request's URL as pino-std-serializers' request serializer reports it (Express's originalUrl first). */
function requestUrl(req: LoggedRequest): string {
  if (req.originalUrl) return req.originalUrl;
  return typeof req.path === 'string' ? req.path : (req.url as string);
}

/**
 * pino options: JSON lines with request_id and tenant on every line (read from the request
 * context, so service logs carry them too), secrets redacted, no payloads.
 */
function pinoOptions(config: AppConfig): LoggerOptions {
  return {
    level: config.logLevel,
    transport: config.debug ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
    mixin: () => {
      const state = RequestContext.current();
      return state ? { request_id: state.requestId, tenant: state.tenantId } : {};
    },
    // The access line's `req` and `res` are the request and response themselves: these read the
    // two fields a line shows from them (the URL as pino-std-serializers' request serializer picks
    // it), not pino-std-serializers' copies (headers, address, query, params) built and dropped.
    serializers: {
      req: (req: LoggedRequest) => ({ method: req.method, url: redactQuery(requestUrl(req)) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: stdSerializers.err,
    },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.api_key', '*.openaiApiKey', '*.webhookSecret'],
      censor: '[Redacted]',
    },
  };
}

/**
 * nestjs-pino options. Its own middleware would run as Nest middleware, after the
 * authentication gate, so a request the gate refuses (401, 403, 429) would leave no access line:
 * the access logger is mounted by app.setup.ts before the gate (accessLogger below), and
 * nestjs-pino mounts nothing (`useExisting`, no routes): its PinoLogger writes service lines.
 */
export function loggerParams(config: AppConfig, stream?: NodeJS.WritableStream | null): Params {
  // nestjs-pino mounts no middleware here, so of pino-http's options it uses pino's own (its
  // PinoLogger writes service lines with them). A destination stream is given by tests that
  // read the log lines back.
  const options = pinoOptions(config);
  return { pinoHttp: stream ? [options, stream as never] : options, useExisting: true, renameContext: 'context', forRoutes: [] };
}

/** The access logger's middleware. */
export type AccessLogger = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * The access logger, for app.setup.ts to mount before the gate: one line per request when its
 * response ends (`request completed`, at info, warn for a 4xx) or fails (`request errored`, at
 * error for a 5xx or a broken response, with its error), with the method, the URL (secrets
 * redacted), the status, `responseTime` in ms and, from the mixin, request_id and tenant; none
 * for probes: the lines pino-http wrote. Service lines (nestjs-pino's PinoLogger, its own logger
 * with the same options and stream) carry request_id and tenant through the same mixin; they no
 * longer repeat the request's method and URL, which its access line has.
 *
 * Why not pino-http: it built a child logger for every request (its `req` binding serialised and
 * redacted at once, a formatter set, arrays of loggers) whether or not a line was then written,
 * about 8% of the service CPU of a single-episode ingest at concurrency 8 and an eighth of what
 * such a request allocates (bench/README.md, 2026-12-04 evening). Here the line's fields are read
 * only when it is written, and only if its level is enabled.
 */
export function accessLogger(config: AppConfig, stream?: NodeJS.WritableStream | null): AccessLogger {
  const logger = stream ? pino(pinoOptions(config), stream as DestinationStream) : pino(pinoOptions(config));
  return (req, res, next) => {
    if (!PROBES.has(pathOf(req.url ?? ''))) {
      const started = Date.now();
      const ended = (err?: Error): void => {
        res.off('finish', ended);
        res.off('close', ended);
        res.off('error', ended);
        writeAccessLine(logger, req, res, Date.now() - started, err);
      };
      res.on('finish', ended);
      res.on('close', ended);
      res.on('error', ended);
    }
    next();
  };
}

function writeAccessLine(logger: Logger, req: IncomingMessage, res: ServerResponse, responseTime: number, err: Error | undefined): void {
  const failed = err !== undefined || res.statusCode >= 500;
  const level = failed ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  if (failed) {
    logger[level]({ req, res, err: err ?? new Error(`failed with status code ${res.statusCode}`), responseTime }, 'request errored');
  } else {
    const completed = !req.readableAborted && res.writableEnded;
    logger[level]({ req, res, responseTime }, completed ? 'request completed' : 'request aborted');
  }
}

/**
 * Query parameters whose values must never reach a log line: the API key (accepted as
 * `api_key`, compat.md) and the search text `q`, which is the user's own words like any payload.
 */
const REDACTED_PARAMS = new Set(['api_key', 'q']);

/**
 * The parameter's name as the query parser reads it: percent-decoded, `+` as space (so
 * `api%5Fkey` is `api_key`), without a trailing `[…]` that some parsers strip, case-insensitive.
 * A name that does not decode is compared as sent.
 */
function parsedParamName(rawName: string): string {
  let name = rawName.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // Malformed escapes: the parser keeps them as they are, and so does this.
  }
  return name.replace(/\[[^\]]*\]$/, '').trim().toLowerCase();
}

/**
 * The URL for a log line with every redacted parameter's value replaced, matched by the name
 * the server parses (not by its spelling in the URL). The rest of the URL stays as sent.
 */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split(/([&;])/);
  for (let i = 0; i < pairs.length; i += 2) {
    const eq = pairs[i].indexOf('=');
    const name = eq < 0 ? pairs[i] : pairs[i].slice(0, eq);
    if (REDACTED_PARAMS.has(parsedParamName(name))) pairs[i] = `${name}=[Redacted]`;
  }
  return `${url.slice(0, q + 1)}${pairs.join('')}`;
}
