import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { RequestContext } from 'src/common/context/request-context';
import type { AppConfig } from 'src/config/app-config';

const PROBES = new Set(['/healthz', '/readyz', '/health', '/ready']);

/**
 * nestjs-pino options: JSON lines with request_id and tenant on every line (read from the
 * request context, so service logs carry them too), secrets redacted, no payloads, no
 * access lines for probes.
 */
export function loggerParams(config: AppConfig, stream?: NodeJS.WritableStream | null): Params {
  const options = {
    level: config.logLevel,
    transport: config.debug ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id: string }).id,
    mixin: () => {
      const state = RequestContext.current();
      return state ? { request_id: state.requestId, tenant: state.tenantId } : {};
    },
    autoLogging: { ignore: (req: IncomingMessage) => PROBES.has((req.url ?? '').split('?')[0]) },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: redactQuery(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.api_key', '*.openaiApiKey', '*.webhookSecret'],
      censor: '[Redacted]',
    },
  };
  // A destination stream is given by tests that read the log lines back.
  return { pinoHttp: stream ? [options, stream as never] : options, renameContext: 'context' };
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
