import type { EntityManager } from 'typeorm';

/**
 * What a repository receives instead of an EntityManager (issue 18): an opaque handle on the
 * caller's transaction, or on the pool outside one. A service passes its transaction's manager
 * as it is — nothing is wrapped or allocated on the hot paths — but typed as a handle it offers a
 * repository no query method, so a repository's statements go only through the data-access
 * layer (TenantScopedRepository.scoped/stamped, the advisory-lock helpers), which opens it.
 */
export type DbHandle = Pick<EntityManager, '@instanceof'>;

/**
 * The manager behind a handle. For the data-access layer only (tenant-scoped.repository.ts,
 * advisory-locks.ts): src/modules/tenant-scoped-sql.spec.ts fails when a repository imports it
 * or TypeORM.
 */
export function managerOf(db: DbHandle): EntityManager {
  return db as EntityManager;
}
