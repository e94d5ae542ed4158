export class LivenessDto {
  /** Always `ok` while the process serves requests. */
  status: string;
}

export class ReadinessChecksDto {
  /** `ok` or the error seen. */
  database: string;
  /** Compile jobs running for more than 30 minutes (orphaned; recovered automatically). */
  stuck_compile_jobs: number;
}

export class ReadinessDto {
  /** `ready`, `degraded` (serving, but stuck compile jobs exist) or `unavailable` (database down, HTTP 503). */
  status: string;
  /** `pglite` (embedded) or `postgres`. */
  engine: string;
  /** `pgvector` or `fallback` (exact cosine over real[]). */
  vector: string;
  checks: ReadinessChecksDto;
}

export class MigrationsReportDto {
  current_revision: string | null;
  expected_head: string;
  is_compatible: boolean;
  pending_count: number;
  pending_revisions: string[];
  error: string | null;
  summary: string;
}
