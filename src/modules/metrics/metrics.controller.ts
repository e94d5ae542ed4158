import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Response } from 'express';
import { TenantOptional } from 'src/common/guards/public.decorator';
import { clusterMetrics, inCluster } from 'src/cluster/cluster-worker';
import { registry } from 'src/common/metrics/metrics';

/**
 * Prometheus exposition. An operator route: the API key when API_KEY is set (header, or the
 * `api_key` query parameter Prometheus can send as a scrape `params`), no tenant header, never
 * rate limited (a scraper must not eat the clients' budget or be refused during an incident).
 * Left out of the OpenAPI document: it is text, not JSON.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  @Get()
  @TenantOptional()
  @SkipThrottle()
  async scrape(@Res() res: Response): Promise<void> {
    // In a cluster worker: every worker's metrics, aggregated by the primary (src/cluster).
    const body = inCluster() ? await clusterMetrics() : await registry.metrics();
    res.setHeader('Content-Type', registry.contentType);
    res.status(200).send(body);
  }
}
