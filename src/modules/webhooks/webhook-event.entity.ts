import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookEventStatus = 'pending' | 'delivered' | 'dead_letter';

/** Outbox row: written in the transaction of the change it reports, delivered by a worker. */
@Entity('webhook_events')
export class WebhookEventEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', nullable: true }) tenant_id: string | null;
  @Column('varchar') event: string;
  @Column('jsonb') payload: { event: string; timestamp: string; data: Record<string, unknown> };
  @Column('varchar') status: WebhookEventStatus;
  @Column('integer') attempts: number;
  @Column('timestamptz') next_attempt_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) locked_until: Date | null;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
  @Column({ type: 'integer', nullable: true }) last_status_code: number | null;
  @Column('timestamptz') created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) delivered_at: Date | null;
}
