import { RateLimitEntity } from 'src/common/throttle/rate-limit.entity';
import { ApiKeyEntity } from 'src/modules/api-keys/api-key.entity';
import { EpisodeEntity } from 'src/modules/episodes/episode.entity';
import { CompileJobEntity } from 'src/modules/memories/compile-job.entity';
import { MemoryRevisionEntity } from 'src/modules/memories/memory-revision.entity';
import { MemoryEntity } from 'src/modules/memories/memory.entity';
import { PolicyBundleEntity } from 'src/modules/policy/policy-bundle.entity';
import { ReceiptEntity } from 'src/modules/receipts/receipt.entity';
import { SnapshotEntity } from 'src/modules/snapshots/snapshot.entity';
import { HealthCacheEntity } from 'src/modules/support/health-cache.entity';
import { HealthHistoryEntity } from 'src/modules/support/health-history.entity';
import { HealthRefreshMarkEntity } from 'src/modules/support/health-refresh-mark.entity';
import { ResolutionEntity } from 'src/modules/support/resolution.entity';
import { WebhookEventCountEntity } from 'src/modules/webhooks/webhook-event-count.entity';
import { WebhookEventEntity } from 'src/modules/webhooks/webhook-event.entity';

/**
 * One entity per table, each declaring every column as the migrations create it:
 * test/e2e/typeorm-schema.e2e-spec.ts fails when TypeORM's schema builder sees any difference.
 */
export const ENTITIES = [
  EpisodeEntity,
  MemoryEntity,
  MemoryRevisionEntity,
  CompileJobEntity,
  WebhookEventEntity,
  WebhookEventCountEntity,
  ResolutionEntity,
  HealthCacheEntity,
  HealthRefreshMarkEntity,
  HealthHistoryEntity,
  SnapshotEntity,
  ReceiptEntity,
  PolicyBundleEntity,
  ApiKeyEntity,
  RateLimitEntity,
];

/** Tables that carry tenant_id: reached only through the tenant-scoped repository base. */
export const TENANT_TABLES = ['episodes', 'memories', 'compile_jobs', 'webhook_events', 'webhook_event_counts', 'resolutions', 'health_cache', 'health_refresh_marks', 'health_history', 'snapshots', 'receipts', 'policy_bundles', 'memory_revisions'] as const;
