import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { TenantOptional } from 'src/common/guards/public.decorator';
import { ApiErrors } from 'src/common/http/api-errors.decorator';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyCreatedDto, ApiKeyDto, ApiKeyIdParamDto, ApiKeyListDto, CreateApiKeyDto } from './dto/api-key.dto';

/** Stored API keys, managed by operators (docs/operations.md "Security model"). */
@ApiTags('admin')
@ApiErrors()
@TenantOptional()
@Controller('admin/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** Creates a key; the answer carries the secret key, shown this once. */
  @Post()
  @ApiCreatedResponse({ type: ApiKeyCreatedDto })
  create(@Body() dto: CreateApiKeyDto): Promise<ApiKeyCreatedDto> {
    return this.keys.create({ role: dto.role, tenantId: dto.tenant_id, name: dto.name });
  }

  /** Every key's id and metadata, never a secret. */
  @Get()
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(): Promise<ApiKeyListDto> {
    return { keys: await this.keys.list() };
  }

  /** A new secret for the key (same id, role and tenant); the old one stops working. */
  @Post(':id/rotate')
  @HttpCode(200)
  @ApiOkResponse({ type: ApiKeyCreatedDto })
  @ApiErrors({ status: 404, description: 'not_found' })
  rotate(@Param() params: ApiKeyIdParamDto): Promise<ApiKeyCreatedDto> {
    return this.keys.rotate(params.id);
  }

  /** Revokes the key on every replica within seconds. */
  @Delete(':id')
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors({ status: 404, description: 'not_found' })
  revoke(@Param() params: ApiKeyIdParamDto): Promise<ApiKeyDto> {
    return this.keys.revoke(params.id);
  }
}
