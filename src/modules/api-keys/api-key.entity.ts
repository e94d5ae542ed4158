import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { NOW, NULLABLE_ID, NULLABLE_TIME } from 'src/db/column-types';

/** A stored API key (migration 0016): operator configuration, no tenant scope; only the secret's SHA-256 is kept. */
@Entity('api_keys')
// The names are the ones PostgreSQL gave the migration's unnamed CHECKs.
@Check('api_keys_role_check', `role IN ('client', 'operator')`)
@Check('api_keys_check', `role = 'client' OR bound_tenant_id IS NULL`)
@Index('ix_api_keys_active', ['id'], { where: 'revoked_at IS NULL' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 }) id: string;
  @Column({ type: 'varchar', length: 200, default: '' }) name: string;
  @Column({ type: 'varchar', length: 16 }) role: 'client' | 'operator';
  @Column(NULLABLE_ID) bound_tenant_id: string | null;
  @Column('bytea') secret_sha256: Buffer;
  @Column(NOW) created_at: Date;
  @Column(NULLABLE_TIME) rotated_at: Date | null;
  @Column(NULLABLE_TIME) revoked_at: Date | null;
}
