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
 * Query values that must never reach a log line: the API key (accepted as `api_key`) and the
 * search text `q`, which is the user's own words like any payload.
 */
const REDACTED_QUERY = /([?&](?:api_key|q)=)[^&]*/gi;

export function redactQuery(url: string): string {
  return url.replace(REDACTED_QUERY, '$1[Redacted]');
}
