import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { errorResponse, sendError } from 'src/common/errors/all-exceptions.filter';
import { ErrorCode } from 'src/common/errors/error-codes';
import { closeIfBodyUnread } from 'src/common/http/json-body';
import { RateLimiter } from 'src/common/throttle/rate-limiter';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { FULL_ACCESS, hasRole, KEY_RESOLVER, keyDigest, keysMatch, surfaceOf } from './principal';
import type { KeyResolver, Principal } from './principal';

/** A scraper must not eat the clients' budget or be refused during an incident. */
const UNTHROTTLED = /^\/metrics\/?$/i;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Nothing is read before it is allowed: this Express middleware runs before Nest's router and
 * before any body is read, for every path but the probes and the docs. In order: rate limit,
 * API key (X-API-Key, `Authorization: Bearer`, or the `api_key` query parameter), role for the
 * path's surface, tenant binding. An unknown route, a disabled feature's route and a known one
 * are refused alike (compat.md); 404 comes only after the key is accepted. A refusal reads and
 * parses no body: one of legal size is discarded as it arrives, a larger one closes the connection.
 */
@Injectable()
export class AuthGate {
  /** API_KEY's digest (keysMatch), null without one. */
  private readonly master: Buffer | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: RateLimiter,
    @Inject(KEY_RESOLVER) private readonly keys: KeyResolver,
  ) {
    this.master = config.apiKey ? keyDigest(config.apiKey) : null;
  }

  handler(): (req: Request, res: Response, next: NextFunction) => void {
    return (req, res, next) => void this.handle(req, res, next);
  }

  private async handle(req: Request, res: Response, next: NextFunction): Promise<void> {
    const surface = surfaceOf(req.path);
    if (surface === 'public') return next();
    try {
      if (!UNTHROTTLED.test(req.path)) await this.limiter.hit(req, res);
      const principal = await this.authenticate(req);
      if (!hasRole(principal, surface)) {
        throw new AppError(ErrorCode.Forbidden, surface === 'operator' ? 'This API key may not call operator endpoints.' : 'This API key may only call operator endpoints.');
      }
      const state = RequestContext.get();
      state.principal = principal;
      if (principal.tenantId !== null) {
        const header = req.header(this.config.tenantHeader);
        if (header !== undefined && header !== principal.tenantId) throw new AppError(ErrorCode.Forbidden, 'This API key is bound to another tenant.');
        // The binding is the scope, whatever REQUIRE_TENANT says: two bound keys never share rows.
        state.tenantId = principal.tenantId;
      }
    } catch (err) {
      closeIfBodyUnread(req, res, this.config.maxBodyBytes);
      sendError(res, errorResponse(err, req, RequestContext.current()?.requestId ?? ''));
      return;
    }
    next();
  }

  /**
   * A presented key is checked first, so a valid one costs no query for "is any key in use".
   * Open access (no API_KEY and no active stored key) is decided from the table on every request
   * that needs it, never from a remembered count: the first key created on any replica closes it
   * everywhere at once.
   */
  private async authenticate(req: Request): Promise<Principal> {
    const master = this.master;
    const token = presentedKey(req);
    if (token !== undefined && token !== '') {
      if (master && keysMatch(token, master)) return FULL_ACCESS;
      const principal = await this.keys.resolve(token);
      if (principal) return principal;
    }
    if (!master && !(await this.keys.keysInUse())) return FULL_ACCESS;
    if (token === undefined || token === '') throw new AppError(ErrorCode.MissingApiKey, 'X-API-Key header is required.');
    throw new AppError(ErrorCode.InvalidApiKey, 'Invalid API key.');
  }
}

/** X-API-Key first, then `Authorization: Bearer` (what agents and MCP clients send), then compat.md's `api_key` query parameter. */
export function presentedKey(req: Request): string | undefined {
  const header = req.header('x-api-key');
  if (header !== undefined) return header;
  const bearer = BEARER.exec(req.header('authorization') ?? '');
  if (bearer) return bearer[1];
  const query = req.query?.api_key;
  return typeof query === 'string' ? query : undefined;
}
