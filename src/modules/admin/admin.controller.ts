import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { operatorScope } from 'src/common/db/tenant-scope';
import { TenantOptional } from 'src/common/guards/public.decorator';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { SpooledBody } from 'src/common/http/json-body';
import type { BodyRequest } from 'src/common/http/json-body';
import { AdminService } from './admin.service';
import { SubjectParamDto } from 'src/modules/subjects/dto/subjects.dto';
import { ExportQueryDto } from './dto/export.dto';
import { ImportBodyDto, ImportResultDto } from './dto/import.dto';
import { JobIdParamDto, JobItemDto, JobsPageDto, ListJobsQueryDto, RequeueJobQueryDto } from './dto/jobs.dto';
import { TenantAuditDto } from './dto/tenant-audit.dto';
import { isLosslessNumber } from 'lossless-json';
import { parseLossless } from './python-json';

/**
 * The import body, parsed once and losslessly: the document keeps the text of numbers like `1.0`,
 * which its checksum covers (JSON.parse would lose it). The document travels beside the body
 * (`req.spooledValue`); the pipe validates the options and sees an empty stand-in for it.
 */
function splitImportBody(text: string): { body: unknown; large?: unknown } {
  const parsed = parseLossless(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { body: Array.isArray(parsed) ? [] : plain(parsed) };
  const { document, ...rest } = parsed as Record<string, unknown>;
  const options = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, plain(v)]));
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    // Only its type matters to the validation error that follows.
    return { body: { ...options, ...(document === undefined ? {} : { document: Array.isArray(document) ? [] : plain(document) }) } };
  }
  return { body: { ...options, document: {} }, large: document };
}

/** Top-level option values as JSON.parse gives them (lossless numbers back to numbers, containers emptied). */
function plain(v: unknown): unknown {
  if (isLosslessNumber(v)) return v.valueOf();
  if (Array.isArray(v)) return [];
  return v !== null && typeof v === 'object' ? {} : v;
}

/**
 * Operator endpoints. They may filter by tenant (a `tenant_id` parameter) but are not
 * restricted by the tenant header (contract "Operator endpoints").
 */
@ApiTags('admin')
@ApiErrors()
@TenantOptional()
@Controller('admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  /** Compile jobs, newest first, filterable by status, subject and tenant. */
  @Get('jobs')
  @ApiOkResponse({ type: JobsPageDto })
  listJobs(@Query() query: ListJobsQueryDto): Promise<JobsPageDto> {
    return this.admin.listJobs(operatorScope(query.tenant_id), query);
  }

  /**
   * A failed compile job back in the queue (attempts reset), answered as it now is. 404 for an
   * unknown job (or another tenant's, with `tenant_id`), 409 `conflict` when it is not failed.
   */
  @Post('jobs/:job_id/requeue')
  @HttpCode(200)
  @ApiOkResponse({ type: JobItemDto })
  @ApiResponse({ status: 404, description: 'not_found', type: ErrorEnvelopeDto })
  @ApiResponse({ status: 409, description: 'conflict: the job is not failed', type: ErrorEnvelopeDto })
  requeueJob(@Param() params: JobIdParamDto, @Query() query: RequeueJobQueryDto): Promise<JobItemDto> {
    return this.admin.requeueJob(operatorScope(query.tenant_id), params.job_id);
  }

  /** Counts of rows whose tenant_id is NULL (legacy rows from before tenant support). */
  @Get('tenant-audit')
  @ApiOkResponse({ type: TenantAuditDto })
  tenantAudit(): Promise<TenantAuditDto> {
    return this.admin.tenantAudit(operatorScope());
  }

  /**
   * The subject as a portable, checksummed JSON document (format_version "1.0"), streamed.
   * Optional `tenant_id` exports only that tenant's rows. 404 when the subject has no rows.
   */
  @Get('export/:subject_id')
  @ApiProduces('application/json')
  @ApiOkResponse({ description: 'Export document: format_version, exported_at, subject_id, tenant_id, episodes, memories, counts, checksum.' })
  @ApiResponse({ status: 404, description: 'not_found', type: ErrorEnvelopeDto })
  async exportSubject(@Param() params: SubjectParamDto, @Query() query: ExportQueryDto, @Res() res: Response): Promise<void> {
    res.type('application/json');
    await this.admin.exportSubject(operatorScope(query.tenant_id), params.subject_id, res);
  }

  /**
   * Imports an export document. 400 `unsupported_format_version`, `checksum_mismatch`,
   * `id_conflict` (preserve_ids) or `invalid_document`; nothing is written on a rejection.
   */
  @Post('import')
  @SpooledBody(splitImportBody)
  @HttpCode(200)
  @ApiOkResponse({ type: ImportResultDto })
  @ApiResponse({ status: 400, description: 'unsupported_format_version | checksum_mismatch | id_conflict | invalid_document', type: ErrorEnvelopeDto })
  importDocument(@Req() req: BodyRequest, @Body() body: ImportBodyDto): Promise<ImportResultDto> {
    const document = (req.spooledValue as Record<string, unknown> | undefined) ?? body.document;
    return this.admin.importDocument(operatorScope(), document, {
      targetSubjectId: body.target_subject_id,
      targetTenantId: body.target_tenant_id,
      preserveIds: body.preserve_ids ?? true,
    });
  }
}
