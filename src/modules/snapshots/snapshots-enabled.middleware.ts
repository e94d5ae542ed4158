import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';

/**
 * Contract: with ENABLE_SNAPSHOTS false all `/admin/snapshots*` and `/admin/cleanup` paths answer
 * 404. The authentication gate has already run (a caller without a valid key gets 401/403 as on
 * any path); this middleware runs before guards, body and pipes, so for an authenticated caller
 * the routes behave exactly like unknown ones.
 */
@Injectable()
export class SnapshotsEnabledMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(req: Request, _res: Response, next: NextFunction): void {
    if (!this.config.enableSnapshots) throw AppError.notFound(`No route for ${req.method} ${req.path}`);
    next();
  }
}
