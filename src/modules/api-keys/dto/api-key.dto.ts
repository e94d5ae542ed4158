import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { Length } from 'src/common/http/text-length';
import type { Role } from 'src/common/auth/principal';
import type { ApiKeyRow } from '../api-keys.repository';

export const ROLES: readonly Role[] = ['client', 'operator'];

export class CreateApiKeyDto {
  /** `client`: the /v1 surface and MCP (within its tenant when bound); `operator`: /admin, /ops, /metrics, any tenant. */
  @ApiProperty({ enum: ROLES, example: 'client' })
  @IsIn(ROLES)
  role: Role;

  /** The tenant a client key is limited to (its requests are scoped to it; another tenant header is a 403). Operator keys cannot be bound. */
  @ApiProperty({ required: false, example: 'acme' })
  @IsOptional()
  @IsString()
  @Length(1, 256)
  tenant_id?: string;

  /** A label for people (who holds the key); never used for authentication. */
  @ApiProperty({ required: false, example: 'acme support agent' })
  @IsOptional()
  @IsString()
  @Length(0, 200)
  name?: string;
}

export class ApiKeyIdParamDto {
  /** The key's public id (the part after `msk_` in the key). */
  @Matches(/^[0-9a-f]{12}$/, { message: 'id must be a key id (12 hex characters)' })
  id: string;
}

export class ApiKeyDto {
  @ApiProperty({ example: '1f2e3d4c5b6a' })
  id: string;
  @ApiProperty({ example: 'acme support agent' })
  name: string;
  @ApiProperty({ enum: ROLES })
  role: Role;
  /** Bound tenant, or null (any tenant the header names; always null for operator keys). */
  @ApiProperty({ type: String, nullable: true, example: 'acme' })
  tenant_id: string | null;
  created_at: string;
  @ApiProperty({ type: String, nullable: true, example: null })
  rotated_at: string | null;
  /** Set once revoked: the key stops working on every replica within seconds. */
  @ApiProperty({ type: String, nullable: true, example: null })
  revoked_at: string | null;
}

export class ApiKeyCreatedDto extends ApiKeyDto {
  /** The secret key, shown this once (only its SHA-256 digest is stored). Send it as `X-API-Key` or `Authorization: Bearer`. */
  @ApiProperty({ example: 'msk_1f2e3d4c5b6a_4q8Yb1m0S2vJpZ6wq9kT3xR7nE5cL0aH8uF2dG6iK1o' })
  key: string;
}

export class ApiKeyListDto {
  /** Newest first, revoked ones included (at most 1,000). */
  keys: ApiKeyDto[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toApiKeyDto(row: ApiKeyRow): ApiKeyDto {
  return { id: row.id, name: row.name, role: row.role, tenant_id: row.bound_tenant_id, created_at: row.created_at.toISOString(), rotated_at: iso(row.rotated_at), revoked_at: iso(row.revoked_at) };
}
