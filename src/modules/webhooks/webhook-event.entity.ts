import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { rowOf } from 'src/common/db/row-shape';
import { NOW, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';

/** An event's delivery status: the one list the entity, the DTOs (wire enum, filters) and the listing share. */
export const WEBHOOK_EVENT_STATUSES = ['pending', 'delivered', 'dead_letter'] as const;
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number];

/** Outbox row (migrations 0005, 0008): written in the transaction of the change it reports, delivered by a worker. */
@Entity('webhook_events')
@Index('ix_webhook_events_due', ['status', 'next_attempt_at'])
export class WebhookEventEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column({ type: 'varchar', length: 64 }) event: string;
  @Column('jsonb') payload: { event: string; timestamp: string; data: Record<string, unknown> };
  @Column({ type: 'varchar', length: 16, default: 'pending' }) status: WebhookEventStatus;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column(NOW) next_attempt_at: Date;
  @Column(NULLABLE_TIME) locked_until: Date | null;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
  @Column({ type: 'integer', nullable: true }) last_status_code: number | null;
  @Column(NOW) created_at: Date;
  @Column(NULLABLE_TIME) delivered_at: Date | null;
}

/** A webhook_events row as the repository reads it: every column of the entity, in this order, checked under test. */
export const WEBHOOK_EVENT_ROW = rowOf<WebhookEventEntity>({
  id: true, tenant_id: true, event: true, payload: true, status: true, attempts: true, next_attempt_at: true, locked_until: true,
  last_error: true, last_status_code: true, created_at: true, delivered_at: true,
});
