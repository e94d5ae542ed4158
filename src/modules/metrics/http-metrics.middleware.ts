import type { NextFunction, Request, Response } from 'express';
import { metrics, secondsSince } from 'src/common/metrics/metrics';
import { routeTemplate } from 'src/common/metrics/route-template';

/**
 * Counts every HTTP request and its latency by method, route template and status, including
 * those refused by the authentication gate (401/403/429, before any route is matched) or matching
 * no route. Plain Express middleware mounted before the gate (app.setup.ts): Nest's module
 * middleware and interceptors run after it and would never see its refusals.
 */
export function httpMetricsMiddleware(req: Request, res: Response, next: NextFunction): void {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeTemplate(req, res), status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, secondsSince(start));
      // 429 is only ever rate_limited (error-codes.ts).
      if (res.statusCode === 429) metrics.rateLimitRejections.inc();
    });
    next();
}
