import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EXPRESSION_INDEX, NULLABLE_ID } from 'src/db/column-types';

/** Delivered webhook events per tenant, kept by triggers on webhook_events (migration 0015). */
@Entity('webhook_event_counts')
// Really on ((coalesce(tenant_id, ''))): see EXPRESSION_INDEX.
@Index('ux_webhook_event_counts_tenant', ['tenant_id'], EXPRESSION_INDEX)
export class WebhookEventCountEntity {
  /** A surrogate key (migration 0021): TypeORM needs one, the table is keyed by the index above. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) row_id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  /** pg returns bigint as text. */
  @Column({ type: 'bigint', default: 0 }) delivered: string;
}
