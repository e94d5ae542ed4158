import { EpisodeEntity } from 'src/modules/episodes/episode.entity';
import { CompileJobEntity } from 'src/modules/memories/compile-job.entity';
import { MemoryEntity } from 'src/modules/memories/memory.entity';
import { SnapshotEntity } from 'src/modules/snapshots/snapshot.entity';
import { HealthCacheEntity } from 'src/modules/support/health-cache.entity';
import { ResolutionEntity } from 'src/modules/support/resolution.entity';
import { WebhookEventEntity } from 'src/modules/webhooks/webhook-event.entity';

export const ENTITIES = [
  EpisodeEntity,
  MemoryEntity,
  CompileJobEntity,
  WebhookEventEntity,
  ResolutionEntity,
  HealthCacheEntity,
  SnapshotEntity,
];

/** Tables that carry tenant_id: reached only through the tenant-scoped repository base. */
export const TENANT_TABLES = ['episodes', 'memories', 'compile_jobs', 'webhook_events', 'webhook_event_counts', 'resolutions', 'health_cache', 'health_refresh_marks', 'snapshots', 'receipts', 'policy_bundles', 'memory_revisions'] as const;
