import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EXPRESSION_INDEX, NOW, NULLABLE_ID } from 'src/db/column-types';

/** A tenant's YAML policy (migration 0014); a NULL tenant holds the single-tenant bundle. */
@Entity('policy_bundles')
// Really on ((coalesce(tenant_id, ''))): see EXPRESSION_INDEX.
@Index('ux_policy_bundles_tenant', ['tenant_id'], EXPRESSION_INDEX)
export class PolicyBundleEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column('text') yaml: string;
  /** Hex SHA-256 of the YAML. */
  @Column({ type: 'char', length: 64 }) hash: string;
  @Column(NOW) updated_at: Date;
}
