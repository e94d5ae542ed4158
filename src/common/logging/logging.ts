import type { IncomingMessage, ServerResponse } from 'node:http';
import { PinoLogger } from 'nestjs-pino';
import type { Params } from 'nestjs-pino';
import { storage, Store } from 'nestjs-pino/storage';
import { stdSerializers } from 'pino';
import type { DestinationStream } from 'pino';
import { pinoHttp } from 'pino-http';
import type { HttpLogger, Options } from 'pino-http';
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
 * pino-http options: JSON lines with request_id and tenant on every line (read from the
 * request context, so service logs carry them too), secrets redacted, no payloads, no
 * access lines for probes.
 */
function pinoHttpOptions(config: AppConfig): Options<IncomingMessage, ServerResponse> {
  return {
    level: config.logLevel,
    transport: config.debug ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id: string }).id,
    mixin: () => {
      const state = RequestContext.current();
      return state ? { request_id: state.requestId, tenant: state.tenantId } : {};
    },
    autoLogging: { ignore: (req: IncomingMessage) => PROBES.has(pathOf(req.url ?? '')) },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    // Our serializers take the request and response themselves, not pino-std-serializers'
    // copies of them (headers, address, query, params, built for every request and dropped at
    // once): they read the same two fields from the source (the URL as that serializer picks
    // it), so the lines are unchanged. `err` keeps the standard serializer pino-http would add.
    wrapSerializers: false,
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
 * nestjs-pino only binds that request logger (`useExisting`) for service log lines.
 */
export function loggerParams(config: AppConfig, stream?: NodeJS.WritableStream | null): Params {
  const options = pinoHttpOptions(config);
  // A destination stream is given by tests that read the log lines back. No routes: nestjs-pino's
  // binding middleware is mounted by app.setup.ts as plain Express middleware (bindRequestLogger).
  return { pinoHttp: stream ? [options, stream as never] : options, useExisting: true, renameContext: 'context', forRoutes: [] };
}

/**
 * What nestjs-pino's own middleware does with `useExisting` (its LoggerModule's
 * bindLoggerMiddleware): service log lines written while the request is handled go through the
 * access logger's request logger (`req.log`, so they carry `req`). Mounted by app.setup.ts right
 * after the authentication gate, where Nest put it for every route ('{*path}'), but as plain
 * Express middleware: Nest's wrapper around a module middleware (a route layer matched on every
 * path, its proxy, a WeakSet of handled requests) cost more than the binding itself.
 */
export function bindRequestLogger(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  storage.run(new Store(req.log, undefined), next);
}

/** The access logger (one line per request), for app.setup.ts to mount before the gate. */
export function accessLogger(config: AppConfig, stream?: NodeJS.WritableStream | null): HttpLogger {
  const middleware = stream ? pinoHttp(pinoHttpOptions(config), stream as DestinationStream) : pinoHttp(pinoHttpOptions(config));
  // What nestjs-pino sets when it creates the middleware itself (PinoLogger's root logger).
  (PinoLogger as unknown as { root: unknown }).root = middleware.logger;
  return middleware;
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
