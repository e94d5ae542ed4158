import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Role } from 'src/common/auth/principal';

export interface ApiKeyRow {
  id: string;
  name: string;
  role: Role;
  bound_tenant_id: string | null;
  secret_sha256: Buffer;
  created_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

/** Listing budget: keys are configuration, a handful per tenant. */
export const MAX_LISTED_KEYS = 1000;

// TypeORM answers an UPDATE with [rows, count]: updates whose rows are read go through `WITH x AS (…) SELECT`.
const COLUMNS = 'id, name, role, bound_tenant_id, secret_sha256, created_at, rotated_at, revoked_at';

/** The api_keys table (operator configuration, not tenant data: no tenant scope). */
@Injectable()
export class ApiKeysRepository {
  async insert(m: EntityManager, row: { id: string; name: string; role: Role; tenantId: string | null; digest: Buffer }): Promise<ApiKeyRow> {
    const rows: ApiKeyRow[] = await m.query(
      `INSERT INTO api_keys (id, name, role, bound_tenant_id, secret_sha256) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [row.id, row.name, row.role, row.tenantId, row.digest],
    );
    return rows[0];
  }

  list(m: EntityManager): Promise<ApiKeyRow[]> {
    return m.query(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at DESC, id LIMIT ${MAX_LISTED_KEYS}`);
  }

  /** One active key by id (primary key lookup), or null when it does not exist or is revoked. */
  async active(m: EntityManager, id: string): Promise<Pick<ApiKeyRow, 'id' | 'role' | 'bound_tenant_id' | 'secret_sha256'> | null> {
    const rows = await beforeTable(m.query(`SELECT id, role, bound_tenant_id, secret_sha256 FROM api_keys WHERE id = $1 AND revoked_at IS NULL`, [id]), []);
    return rows[0] ?? null;
  }

  /** Whether any key is active: answered from the partial index ix_api_keys_active. */
  async anyActive(m: EntityManager): Promise<boolean> {
    return (await beforeTable(m.query(`SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL) AS any`), [{ any: false }]))[0].any === true;
  }

  async rotate(m: EntityManager, id: string, digest: Buffer): Promise<ApiKeyRow | null> {
    const rows: ApiKeyRow[] = await m.query(
      `WITH x AS (UPDATE api_keys SET secret_sha256 = $2, rotated_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}) SELECT * FROM x`,
      [id, digest],
    );
    return rows[0] ?? null;
  }

  /** Revokes (idempotent: an already revoked key keeps its first revocation time). */
  async revoke(m: EntityManager, id: string): Promise<ApiKeyRow | null> {
    const rows: ApiKeyRow[] = await m.query(`WITH x AS (UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}) SELECT * FROM x`, [id]);
    return rows[0] ?? null;
  }
}

/**
 * A schema older than 0016_api_keys has no stored keys. Without STRICT_SCHEMA the app still serves
 * /ops/migrations on such a database so the operator can see why (schema guard): authentication
 * must then behave as before the table existed, not fail every request.
 */
const UNDEFINED_TABLE = '42P01';
async function beforeTable<T>(query: Promise<T>, none: T): Promise<T> {
  try {
    return await query;
  } catch (err) {
    const code = (err as { code?: string; driverError?: { code?: string } }).code ?? (err as { driverError?: { code?: string } }).driverError?.code;
    if (code === UNDEFINED_TABLE) return none;
    throw err;
  }
}
