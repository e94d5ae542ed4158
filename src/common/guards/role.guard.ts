import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { hasRole } from 'src/common/auth/principal';
import { RequestContext } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { IS_PUBLIC, TENANT_OPTIONAL } from './public.decorator';

/**
 * The authentication gate judged the path; this judges the matched route, so a route whose path
 * the gate would misread still gets the role its metadata asks for. Operator routes are the
 * tenant-optional ones (/admin, /ops, /metrics); every other non-public route is client surface.
 * No principal on a non-public route means the gate did not run: refused (deny by default).
 */
@Injectable()
export class RoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const principal = RequestContext.current()?.principal;
    if (!principal) throw new AppError(ErrorCode.MissingApiKey, 'X-API-Key header is required.');
    const role = this.reflector.getAllAndOverride<boolean>(TENANT_OPTIONAL, targets) ? 'operator' : 'client';
    if (!hasRole(principal, role)) throw new AppError(ErrorCode.Forbidden, `This API key may not call ${role === 'operator' ? 'operator' : 'client'} endpoints.`);
    return true;
  }
}
