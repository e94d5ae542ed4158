import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { errorResponse, sendError } from 'src/common/errors/all-exceptions.filter';
import { ErrorCode } from 'src/common/errors/error-codes';

export const CONSOLE_PREFIX = '/console';

/**
 * The pages themselves hold nothing but code, so they are served without a key, before the
 * authentication gate (like /docs): every piece of data the console shows is fetched by the
 * browser from the API with the key the user signed in with. The policy keeps the key where
 * it is: scripts only from this origin (no inline or third-party code that could read
 * sessionStorage), API calls only to this origin, no framing, no referrer.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

function setSecurityHeaders(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

/**
 * Mounts the built console (`dir`, Vite's output) at /console. Hashed files under assets/ are
 * cached for good (a missing one is a 404); every other GET below /console answers index.html uncached (the app routes
 * in the browser), so a new release is picked up on the next load. Other methods fall through
 * to the gate, which refuses them like any unknown route. Without a build, /console answers
 * 404 in the error envelope saying how to build it.
 */
export function mountConsole(app: NestExpressApplication, dir: string): void {
  const index = join(dir, 'index.html');
  app.use(CONSOLE_PREFIX, (_req: Request, res: Response, next: NextFunction) => {
    setSecurityHeaders(res);
    next();
  });
  app.useStaticAssets(join(dir, 'assets'), {
    prefix: `${CONSOLE_PREFIX}/assets`,
    immutable: true,
    maxAge: '365d',
    index: false,
  });
  app.use(CONSOLE_PREFIX, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const missing = req.path.startsWith('/assets/') ? `No console asset ${req.path}.` : !existsSync(index) ? 'The console is not built: run `npm run build`.' : null;
    if (missing !== null) {
      sendError(res, errorResponse(new AppError(ErrorCode.NotFound, missing), req, RequestContext.current()?.requestId ?? ''));
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
}
