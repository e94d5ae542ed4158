import { Injectable, NestMiddleware } from '@nestjs/common';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from 'src/common/context/request-context';
import { routeTemplate } from 'src/common/metrics/route-template';
import { startSpan } from './tracing';

/**
 * One server span per HTTP request, active while the request is handled so database and other
 * spans become its children. Named by the route template (`POST /v1/memories/compile`), never
 * the raw URL (ids and query strings stay out of span names and attributes). A `traceparent`
 * header from the caller makes it a child of the caller's span.
 */
@Injectable()
export class HttpTracingMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const started = startSpan(`HTTP ${req.method}`, { 'http.request.method': req.method }, SpanKind.SERVER, req.headers);
    if (!started) return next();
    // The guard sets the tenant on this same object later in the request.
    const state = RequestContext.current();
    const { span } = started;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeTemplate(req, res);
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (state?.tenantId) span.setAttribute('tenant.id', state.tenantId);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!res.writableFinished) span.setAttribute('http.aborted', true);
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    started.run(next);
  }
}
