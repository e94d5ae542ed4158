import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0];
}

/**
 * The MCP transport specification asks HTTP servers to validate `Origin` (and local ones to guard
 * against DNS rebinding): a web page the user visits must not drive this server's tools. /mcp is
 * not in the contract, so the rule is ours: an `Origin` must be a loopback origin or one listed in
 * CORS_ORIGINS (the `*` wildcard does not count here), and `Host` must be a loopback name, the
 * host of such an origin, or one listed in MCP_ALLOWED_HOSTS. Anything else is 403 `forbidden`.
 * Requests without `Origin` (agents, SDKs, curl) are not browsers and pass the Origin check.
 */
@Injectable()
export class McpOriginMiddleware implements NestMiddleware {
  private readonly origins: Set<string>;
  private readonly hosts: Set<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.origins = new Set(config.corsOrigins.filter((o) => o !== '*').map((o) => o.toLowerCase().replace(/\/+$/, '')));
    this.hosts = new Set([...LOOPBACK_HOSTS, ...config.mcpAllowedHosts.map((h) => h.toLowerCase())]);
    for (const o of this.origins) {
      try {
        this.hosts.add(new URL(o).hostname.toLowerCase());
      } catch {
        // not a URL: it can only match an Origin header literally
      }
    }
  }

  use(req: Request, _res: Response, next: NextFunction): void {
    const origin = req.header('origin');
    if (origin !== undefined && !this.originAllowed(origin)) throw new AppError(ErrorCode.Forbidden, 'Origin not allowed for /mcp.');
    const host = req.header('host');
    if (host !== undefined && !this.hosts.has(hostName(host))) throw new AppError(ErrorCode.Forbidden, 'Host not allowed for /mcp (see SERVICE_MCP_ALLOWED_HOSTS).');
    next();
  }

  private originAllowed(origin: string): boolean {
    const o = origin.trim().toLowerCase();
    if (this.origins.has(o)) return true;
    try {
      const u = new URL(o);
      return (u.protocol === 'http:' || u.protocol === 'https:') && LOOPBACK_HOSTS.has(u.hostname);
    } catch {
      return false;
    }
  }
}
