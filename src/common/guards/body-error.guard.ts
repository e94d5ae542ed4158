import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { BodyRequest } from 'src/common/http/json-body.middleware';

/** Runs after the auth guards, so an unauthenticated caller learns nothing from body errors. */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<BodyRequest>();
    if (req.bodyError) throw req.bodyError;
    return true;
  }
}
