import type { Request, Response } from 'express';

/**
 * The matched route's template (`/v1/memories/compile/:job_id`) for metric labels and span
 * names: raw URLs would carry ids (unbounded label values) and query strings. Requests no
 * route matched are `unmatched` (404s), `refused` (turned away by the authentication gate before
 * routing, which by design does not say whether the route exists) or `other` (docs assets).
 */
export function routeTemplate(req: Request, res: Response): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  // A wildcard is the catch-all pattern of a middleware (Nest's 404s carry it), never one of our routes.
  if (typeof path === 'string' && !path.includes('*')) return `${req.baseUrl ?? ''}${path}` || '/';
  if (res.statusCode === 404) return 'unmatched';
  return [401, 403, 429, 503].includes(res.statusCode) ? 'refused' : 'other';
}
