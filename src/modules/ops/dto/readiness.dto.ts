export class LivenessDto {
  /** Always `ok` while the process serves requests. */
  status: string;
}

export class ReplicaStatusDto {
  /** `replica-<n>`: position in SERVICE_READ_REPLICA_URLS. */
  name: string;
  /** `ok` (serves reads), `lagging` (behind the primary past SERVICE_READ_REPLICA_MAX_LAG) or `down`; only `ok` replicas get reads. */
  state: string;
  /** Estimated replay lag in seconds; null while unknown (down). */
  lag_seconds: number | null;
}

export class ReadinessChecksDto {
  /** `ok` or `unavailable` (the cause is in the service log, not shown to anonymous callers). */
  database: string;
  /** Compile jobs running for more than 30 minutes (orphaned; recovered automatically). */
  stuck_compile_jobs: number;
  /** Read replicas (only when SERVICE_READ_REPLICA_URLS is set). One that is not `ok` makes the status `degraded`: its reads go to the primary. */
  replicas?: ReplicaStatusDto[];
}

export class ReadinessDto {
  /** `ready`, `degraded` (serving, but stuck compile jobs exist or a read replica is skipped) or `unavailable` (database down, HTTP 503). */
  status: string;
  /** `pglite` (embedded) or `postgres`. */
  engine: string;
  /** `pgvector` or `fallback` (exact cosine over real[]). */
  vector: string;
  /** `open` while no API key is configured or stored (anyone who reaches the port has full access), else `key`. */
  auth: string;
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
