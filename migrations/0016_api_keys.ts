import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0016: stored API keys (docs/operations.md "Security model"). Only a SHA-256 digest of
 * each secret is kept. Operator configuration, not tenant data: the tenant a client key is bound
 * to is `bound_tenant_id`, and the table has no row-level tenant scope.
 */
export class ApiKeys1700000000016 implements MigrationInterface {
  name = 'ApiKeys1700000000016';
  readonly revision = '0016_api_keys';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_keys (
        id varchar(32) PRIMARY KEY,
        name varchar(200) NOT NULL DEFAULT '',
        role varchar(16) NOT NULL CHECK (role IN ('client', 'operator')),
        bound_tenant_id varchar(256),
        secret_sha256 bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        rotated_at timestamptz,
        revoked_at timestamptz,
        CHECK (role = 'client' OR bound_tenant_id IS NULL)
      )`);
    await q.query(`CREATE INDEX ix_api_keys_active ON api_keys (id) WHERE revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
  }
}
