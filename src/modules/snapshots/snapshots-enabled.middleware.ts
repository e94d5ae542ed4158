import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';

/**
 * Contract: with ENABLE_SNAPSHOTS false all `/admin/snapshots*` and `/admin/cleanup` paths answer
 * 404. A middleware runs before guards and pipes, so the routes then behave exactly like unknown
 * ones: no key check, body error or validation error can leak that they exist.
 */
@Injectable()
export class SnapshotsEnabledMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(req: Request, _res: Response, next: NextFunction): void {
    if (!this.config.enableSnapshots) throw AppError.notFound(`No route for ${req.method} ${req.path}`);
    next();
  }
}
