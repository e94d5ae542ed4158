import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';
export const TENANT_OPTIONAL = 'tenantOptional';

/** Opens a route to callers without an API key or tenant (probes and docs only). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * Operator routes filter by an explicit tenant_id parameter instead of the tenant header
 * (contract: operator endpoints "may filter by tenant but are not restricted by it").
 */
export const TenantOptional = () => SetMetadata(TENANT_OPTIONAL, true);
