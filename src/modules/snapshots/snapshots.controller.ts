import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { operatorScope } from 'src/common/db/tenant-scope';
import { TenantOptional } from 'src/common/guards/public.decorator';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { CleanupQueryDto, CleanupResultDto } from './dto/cleanup.dto';
import { RestoreByNameDto, RestoreResultDto, RestoreSnapshotDto, SnapshotIdParamDto, SnapshotListDto, TenantFilterQueryDto } from './dto/snapshot.dto';
import { SnapshotsCleanupService } from './snapshots-cleanup.service';
import { SnapshotsService } from './snapshots.service';

/**
 * Snapshot and cleanup operator endpoints. With ENABLE_SNAPSHOTS off every one of them answers
 * 404 before anything else runs (SnapshotsEnabledMiddleware). Snapshots are created with the
 * `snapshot create` CLI command; the contract has no endpoint for it.
 */
@ApiTags('snapshots')
@ApiErrors()
@ApiNotFoundResponse({ description: 'not_found (also every route while ENABLE_SNAPSHOTS is false)', type: ErrorEnvelopeDto })
@TenantOptional()
@Controller('admin')
export class SnapshotsController {
  constructor(
    private readonly snapshots: SnapshotsService,
    private readonly cleanups: SnapshotsCleanupService,
  ) {}

  /** Every snapshot, newest first; `tenant_id` filters. */
  @Get('snapshots')
  @ApiOkResponse({ type: SnapshotListDto })
  list(@Query() query: TenantFilterQueryDto): Promise<SnapshotListDto> {
    return this.snapshots.list(operatorScope(query.tenant_id));
  }

  /** Restores the latest version of a named snapshot into `target_subject_id`. */
  @Post('snapshots/restore-by-name')
  @HttpCode(200)
  @ApiOkResponse({ type: RestoreResultDto })
  restoreByName(@Query() query: TenantFilterQueryDto, @Body() body: RestoreByNameDto): Promise<RestoreResultDto> {
    return this.snapshots.restoreByName(operatorScope(query.tenant_id), body.name, body.target_subject_id);
  }

  /** Restores one snapshot into `target_subject_id`: new ids, timestamps shifted so its newest episode is now. */
  @Post('snapshots/:snapshot_id/restore')
  @HttpCode(200)
  @ApiOkResponse({ type: RestoreResultDto })
  restore(@Param() params: SnapshotIdParamDto, @Query() query: TenantFilterQueryDto, @Body() body: RestoreSnapshotDto): Promise<RestoreResultDto> {
    return this.snapshots.restoreById(operatorScope(query.tenant_id), params.snapshot_id, body.target_subject_id);
  }

  /**
   * Deletes subjects whose id starts with `prefix` (literally) and whose newest episode or memory
   * is older than `max_age_hours`; `_snapshot/` subjects are never deleted.
   */
  @Post('cleanup')
  @HttpCode(200)
  @ApiOkResponse({ type: CleanupResultDto })
  async cleanup(@Query() query: CleanupQueryDto): Promise<CleanupResultDto> {
    return { subjects_cleaned: await this.cleanups.cleanup(operatorScope(query.tenant_id), query.prefix, query.max_age_hours) };
  }
}
