import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Response } from 'express';
import { currentCtx } from 'src/common/context/request-context';
import { envelope } from 'src/common/errors/all-exceptions.filter';
import { ErrorCode } from 'src/common/errors/error-codes';
import { Public, TenantOptional } from 'src/common/guards/public.decorator';
import { LivenessDto, MigrationsReportDto, ReadinessDto } from './dto/readiness.dto';
import { OpsService } from './ops.service';

@ApiTags('ops')
@Controller()
export class OpsController {
  constructor(private readonly ops: OpsService) {}

  /** Liveness: answers without touching the database. `/health` is the legacy alias. */
  @Public()
  @SkipThrottle()
  @Get(['healthz', 'health'])
  liveness(): LivenessDto {
    return { status: 'ok' };
  }

  /**
   * Readiness: database ping and stuck compile jobs, cached for about a second. 503 while the
   * database is unreachable, with a generic message (the cause is logged). `/ready` is the legacy alias.
   */
  @Public()
  @SkipThrottle()
  @Get(['readyz', 'ready'])
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ description: 'Database unreachable; the body carries the checks and an error envelope.' })
  async readiness(@Res({ passthrough: true }) res: Response): Promise<ReadinessDto> {
    const { ok, body } = await this.ops.readiness();
    if (ok) return body;
    res.status(503);
    // The error envelope rides along so clients that only read errors still find one.
    return { ...body, ...envelope(ErrorCode.ServiceUnavailable, 'Database unavailable.', null, currentCtx().requestId) };
  }

  /** Migration introspection (contract "Versioning"). Requires the API key like other operator routes. */
  @TenantOptional()
  @Get('ops/migrations')
  migrations(): Promise<MigrationsReportDto> {
    return this.ops.migrations();
  }
}
