import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ENTITIES } from './src/db/entities';
import { MIGRATIONS } from './src/db/migrations';

/**
 * Data source for the TypeORM CLI (e.g. `npx typeorm schema:log -d dist/ormconfig.js`).
 * The service itself migrates with its revision runner (`npm run migrate -- upgrade head`),
 * which records revisions in schema_migrations; this file only points TypeORM's tools at the
 * same entities and migration classes. PostgreSQL only: set SERVICE_DATABASE_URL.
 * `schema:log` against a migrated database prints nothing where pgvector is installed; on a server
 * without it, it proposes adding `memories.embedding_vec` (and its typeorm_metadata row), which the
 * service's own data source drops from its metadata there (alignVectorColumn, src/db/vector-support.ts).
 */
export default new DataSource({
  type: 'postgres',
  url: (process.env.SERVICE_DATABASE_URL ?? '').replace(/^postgres(ql)?(\+\w+)?:\/\//, 'postgresql://'),
  entities: ENTITIES,
  migrations: [...MIGRATIONS],
  migrationsTableName: 'typeorm_migrations',
  synchronize: false,
  // The migrations own extensions: a TypeORM command never runs CREATE EXTENSION.
  installExtensions: false,
});
