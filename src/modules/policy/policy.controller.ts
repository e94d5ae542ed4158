import { Body, Controller, Delete, Get, HttpCode, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { operatorScope } from 'src/common/db/tenant-scope';
import { TenantOptional } from 'src/common/guards/public.decorator';
import { ApiErrors, ErrorEnvelopeDto } from 'src/common/http/api-errors.decorator';
import { PolicyBundleDto, PolicyDeletedDto, PolicyTenantQueryDto, PutPolicyBodyDto } from './dto/policy.dto';
import { PolicyService } from './policy.service';

/**
 * Operator endpoints for a tenant's policy bundle (docs/governance.md section 2): like the other
 * /admin routes they take the tenant as `tenant_id`, not from the tenant header.
 */
@ApiTags('admin')
@ApiErrors()
@TenantOptional()
@Controller('admin/policy')
export class PolicyController {
  constructor(private readonly policy: PolicyService) {}

  /** Store (replace) the bundle. 422 `invalid_policy` names the line at fault; the previous bundle stays. Emits `policy.updated`. */
  @Put()
  @HttpCode(200)
  @ApiOkResponse({ type: PolicyBundleDto })
  @ApiResponse({ status: 422, description: 'invalid_policy (details.line) or validation_error', type: ErrorEnvelopeDto })
  put(@Query() query: PolicyTenantQueryDto, @Body() body: PutPolicyBodyDto): Promise<PolicyBundleDto> {
    return this.policy.put(operatorScope(query.tenant_id), body.yaml);
  }

  /** The bundle in force; 404 when there is none. */
  @Get()
  @ApiOkResponse({ type: PolicyBundleDto })
  get(@Query() query: PolicyTenantQueryDto): Promise<PolicyBundleDto> {
    return this.policy.get(operatorScope(query.tenant_id));
  }

  /** Remove the bundle: nothing is filtered and receipts follow the RECEIPTS setting. Emits `policy.updated`. */
  @Delete()
  @HttpCode(200)
  @ApiOkResponse({ type: PolicyDeletedDto })
  delete(@Query() query: PolicyTenantQueryDto): Promise<PolicyDeletedDto> {
    return this.policy.delete(operatorScope(query.tenant_id));
  }
}
