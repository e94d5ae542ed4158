import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Fixed-window counter of the distributed rate limiter, one row per client key (migration 0009). */
@Entity('rate_limits')
@Index('ix_rate_limits_window_start', ['window_start'])
export class RateLimitEntity {
  @PrimaryColumn({ type: 'varchar', length: 300 }) key: string;
  @Column('timestamptz') window_start: Date;
  @Column('integer') hits: number;
}
