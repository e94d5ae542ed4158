import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { IS_PUBLIC } from './public.decorator';

/** Hashing first gives equal-length inputs, so the comparison time says nothing about the key. */
export function keysMatch(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.config.apiKey) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<Request>();
    // compat.md: the key may also come as the `api_key` query parameter (redacted in logs).
    const queryKey = typeof req.query?.api_key === 'string' ? req.query.api_key : undefined;
    const given = req.header('x-api-key') ?? queryKey;
    if (given === undefined || given === '') {
      throw new AppError(ErrorCode.MissingApiKey, 'X-API-Key header is required.');
    }
    if (!keysMatch(given, this.config.apiKey)) throw new AppError(ErrorCode.InvalidApiKey, 'Invalid API key.');
    return true;
  }
}
