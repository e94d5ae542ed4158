import { resolve } from 'node:path';
import { projectRoot } from 'src/common/project-root';
import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { answerClientError } from 'src/common/http/client-error';
import { AuthGate } from 'src/common/auth/auth-gate';
import { httpMetricsMiddleware } from 'src/modules/metrics/http-metrics.middleware';
import { requestIdMiddleware } from 'src/common/http/request-id.middleware';
import { accessLogger } from 'src/common/logging/logging';
import { LOG_STREAM } from 'src/common/logging/log-stream.module';
import { AppConfig } from 'src/config/app-config';
import { finishOpenApi } from 'src/common/http/openapi-document';
import { mountConsole } from 'src/common/http/console-assets';
import { CONTRACT_VERSION, SERVICE_VERSION } from 'src/common/version';

/** `tenantHeader`: the configured header name; the checked-in document uses the default. */
export function buildOpenApi(app: INestApplication, tenantHeader = 'X-Tenant-ID'): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Memory Service')
    .setDescription(`Self-hosted memory runtime for AI agents: episodes in, typed memories and token-bounded context out. Contract ${CONTRACT_VERSION}.`)
    .setVersion(SERVICE_VERSION)
    .build();
  return finishOpenApi(SwaggerModule.createDocument(app, config), tenantHeader);
}

/**
 * ReDoc's standalone bundle is vendored (vendor/redoc, MIT) so /redoc works offline: the npm
 * package would pull React and friends into production dependencies for one static file.
 */
const REDOC_BUNDLE = resolve(projectRoot(), 'vendor', 'redoc', 'redoc.standalone.js');
const REDOC_HTML = `<!doctype html><html><head><title>Memory Service API</title><meta charset="utf-8"/></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>`;

/** Vite's output (`npm run build`); outside dist/ because `nest build` empties dist/. */
const CONSOLE_DIR = resolve(projectRoot(), 'console', 'dist');

/**
 * Everything both `main.ts` and the tests apply to an app: middleware order, CORS, docs.
 * Request id first (so every later error carries it), then CORS, the docs, the access logger
 * and the authentication gate. Bodies are read later, by JsonBodyGuard, for matched routes only.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  app.set('trust proxy', config.trustedProxies === '' ? false : /^\d+$/.test(config.trustedProxies) ? Number(config.trustedProxies) : config.trustedProxies);
  app.getHttpServer().on('clientError', answerClientError);
  // A peer that stops reading (or sending) for this long is disconnected: a stalled export
  // reader holds a file handle until then, and nothing else (see AdminService.exportSubject).
  app.getHttpServer().setTimeout(config.socketIdleTimeoutMs);
  app.use(requestIdMiddleware);
  app.use(httpMetricsMiddleware);
  const allowAll = config.corsOrigins.includes('*');
  app.enableCors({
    origin: allowAll ? true : (origin, cb) => cb(null, origin !== undefined && config.corsOrigins.includes(origin)),
    exposedHeaders: ['X-Request-ID', 'Retry-After'],
  });
  const document = buildOpenApi(app, config.tenantHeader);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  app.use('/redoc', (req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/redoc.standalone.js') return res.sendFile(REDOC_BUNDLE);
    if (req.path !== '/' && req.path !== '') return next();
    res.type('html').send(REDOC_HTML);
  });
  // Before the gate, so its refusals (401, 403, 429) are access-logged like every other answer.
  app.use(accessLogger(config, app.get(LOG_STREAM)));
  // The console's pages hold no data (the browser calls the API with the user's key): public,
  // like the docs, so before the gate. Off: /console reaches the gate like any unknown route.
  if (config.consoleEnabled) mountConsole(app, CONSOLE_DIR);
  // After the docs (public), before every route Nest registers at init: see AuthGate.
  app.use(app.get(AuthGate).handler());
  app.enableShutdownHooks();
}

