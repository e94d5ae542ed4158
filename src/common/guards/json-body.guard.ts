import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { BodyRequest, readJsonBody, SPOOLED_BODY } from 'src/common/http/json-body';
import type { SpoolParser } from 'src/common/http/json-body';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';

/**
 * The last guard: the body is read and parsed only for a route that exists, once the key, role,
 * tenant and rate limit have passed (so an unauthenticated caller learns nothing from body
 * errors and costs no parsing). Nest resolves `@Body()` after the guards, so handlers and pipes
 * see the parsed body as before.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const spooled = this.reflector.getAllAndOverride<SpoolParser | undefined>(SPOOLED_BODY, [context.getHandler(), context.getClass()]);
    await readJsonBody(http.getRequest<BodyRequest>(), http.getResponse<Response>(), this.config, spooled);
    return true;
  }
}
