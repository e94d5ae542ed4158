import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { RequestContext } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { stringProblem } from 'src/common/http/json-safety';
import { IS_PUBLIC, TENANT_OPTIONAL } from './public.decorator';

/**
 * With REQUIRE_TENANT the tenant header is mandatory and becomes the request's scope;
 * without it the header is ignored and the service is single-tenant (contract rule 3).
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.config.requireTenant) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(TENANT_OPTIONAL, targets)) return true;
    // A key bound to a tenant has already set the scope (AuthGate); the header is then optional.
    if (RequestContext.get().principal?.tenantId) return true;
    const name = this.config.tenantHeader;
    const tenant = context.switchToHttp().getRequest<Request>().header(name);
    if (tenant === undefined || tenant.trim() === '') {
      throw new AppError(ErrorCode.MissingTenant, `${name} header is required.`);
    }
    if (tenant.length > 256 || stringProblem(tenant)) {
      throw AppError.validation(['header', name], 'tenant id must be 1-256 characters of valid text');
    }
    RequestContext.get().tenantId = tenant;
    return true;
  }
}
