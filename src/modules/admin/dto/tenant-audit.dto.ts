export class NullTenantRowsDto {
  episodes: number;
  memories: number;
  compile_jobs: number;
  /** Context and handoff receipts (docs/governance.md) written without a tenant. */
  receipts: number;
}

export class TenantAuditDto {
  /** Rows created before tenant support (tenant_id NULL); a tenant filter never returns them. */
  null_tenant_rows: NullTenantRowsDto;
  guidance: string;
}
