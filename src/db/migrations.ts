import { MigrationInterface } from 'typeorm';
import { InitialSchema1700000000001 } from '../../migrations/0001_initial_schema';
import { CompileJobs1700000000002 } from '../../migrations/0002_compile_jobs';
import { MemoryAttributes1700000000003 } from '../../migrations/0003_memory_attributes';
import { EmbeddingAsText1700000000004 } from '../../migrations/0004_embedding_as_text';
import { WebhookEvents1700000000005 } from '../../migrations/0005_webhook_events';
import { Resolutions1700000000006 } from '../../migrations/0006_resolutions';
import { Snapshots1700000000007 } from '../../migrations/0007_snapshots';
import { AddTenantIdColumns1700000000008 } from '../../migrations/0008_add_tenant_id_columns';
import { AddRateLimitTable1700000000009 } from '../../migrations/0009_add_rate_limit_table';
import { EpisodeSessionsAndSearch1700000000010 } from '../../migrations/0010_episode_sessions_and_search';
import { JobResultsAndLeases1700000000011 } from '../../migrations/0011_job_results_and_leases';
import { AddHealthCache1700000000012 } from '../../migrations/0012_add_health_cache';
import { MemoryManagement1700000000013 } from '../../migrations/0013_memory_management';
import { Governance1700000000014 } from '../../migrations/0014_governance';
import { WebhookEventCounts1700000000015 } from '../../migrations/0015_webhook_event_counts';
import { ApiKeys1700000000016 } from '../../migrations/0016_api_keys';
import { HealthRefreshMarks1700000000017 } from '../../migrations/0017_health_refresh_marks';
import { TenantRowSecurity1700000000018 } from '../../migrations/0018_tenant_row_security';
import { ReceiptCopies1700000000019 } from '../../migrations/0019_receipt_copies';
import { ReceiptBodyText1700000000020 } from '../../migrations/0020_receipt_body_text';
import { TypeormSchema1700000000021 } from '../../migrations/0021_typeorm_schema';
import { HealthHistory1700000000022 } from '../../migrations/0022_health_history';
import { ReceiptBodyLz41700000000023 } from '../../migrations/0023_receipt_body_lz4';
import { ReceiptEntriesPacked1700000000024 } from '../../migrations/0024_receipt_entries_packed';

export interface Revision extends MigrationInterface {
  readonly revision: string;
}

/** Every migration in order; the last one is the head this app version expects. */
export const MIGRATIONS: readonly (new () => Revision)[] = [
  InitialSchema1700000000001,
  CompileJobs1700000000002,
  MemoryAttributes1700000000003,
  EmbeddingAsText1700000000004,
  WebhookEvents1700000000005,
  Resolutions1700000000006,
  Snapshots1700000000007,
  AddTenantIdColumns1700000000008,
  AddRateLimitTable1700000000009,
  EpisodeSessionsAndSearch1700000000010,
  JobResultsAndLeases1700000000011,
  AddHealthCache1700000000012,
  MemoryManagement1700000000013,
  Governance1700000000014,
  WebhookEventCounts1700000000015,
  ApiKeys1700000000016,
  HealthRefreshMarks1700000000017,
  TenantRowSecurity1700000000018,
  ReceiptCopies1700000000019,
  ReceiptBodyText1700000000020,
  TypeormSchema1700000000021,
  HealthHistory1700000000022,
  ReceiptBodyLz41700000000023,
  ReceiptEntriesPacked1700000000024,
];

export const EXPECTED_HEAD = '0024_receipt_entries_packed';
/**
 * Oldest schema revision this app version runs on (contract "Versioning" table, 0.6.1): it
 * stores receipt bodies with their entries packed, which only 0024's downgrade turns back into
 * what an older version reads (so a rollback must pass through it); every health recomputation
 * appends to health_history (0022). (0018 only adds row-level security policies, which this
 * version satisfies and can do without.)
 */
export const MINIMUM_COMPATIBLE = '0024_receipt_entries_packed';
