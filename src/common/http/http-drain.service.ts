import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Nest closes the HTTP server only after the shutdown hooks, i.e. after the database is gone,
 * so requests in flight at SIGTERM would fail. This stops accepting connections first and waits
 * (bounded) for in-flight requests; the database closes later, in onApplicationShutdown.
 */
@Injectable()
export class HttpDrainService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('shutdown');
  static readonly DRAIN_TIMEOUT_MS = 25_000;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server?.listening) return;
    if (signal) this.logger.log(`${signal}: draining in-flight requests`);
    // close() only stops new connections: a client that keeps a kept-alive connection busy would
    // hold the drain open until the timeout, which then cuts its requests mid-way. Requests that
    // still arrive are served with `Connection: close`, so each connection ends after its answer.
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => res.setHeader('Connection', 'close'));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, HttpDrainService.DRAIN_TIMEOUT_MS);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      // Keep-alive sockets with no request in flight would hold close() open.
      server.closeIdleConnections();
    });
  }
}
