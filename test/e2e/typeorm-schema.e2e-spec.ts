import { DataSource } from 'typeorm';
import { baseOptions, initializeWithRetry } from 'src/db/data-source';
import { ENTITIES } from 'src/db/entities';
import { upgrade } from 'src/db/migration-runner';
import { alignVectorColumn, detectVectorMode } from 'src/db/vector-support';
import { isPglite } from '../app-factory';
import { useScratchDb } from '../support/scratch-db';

/**
 * The entities are the one definition of each table (docs/architecture.md): a database migrated
 * from nothing is exactly what they declare, so TypeORM's schema builder has nothing to change.
 * What TypeORM cannot express is named in the entity and left alone (`synchronize: false` on an
 * expression index), never skipped here.
 */
describe('TypeORM entities match the migrated schema', () => {
  const scratch = useScratchDb(async (db) => {
    // The service's own options (entities, no extension installs), on the scratch database.
    const ds = new DataSource({ ...baseOptions(db.url, 1, true), extra: { max: 1, idleTimeoutMillis: 0 } });
    await initializeWithRetry(ds);
    await upgrade(ds, 'head');
    alignVectorColumn(ds, await detectVectorMode(ds));
    return ds;
  });

  it('every table of the schema has an entity, and every entity a table', async () => {
    const rows: { table_name: string }[] = await scratch.ds.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
         AND table_name NOT IN ('schema_migrations', 'typeorm_metadata') ORDER BY table_name`,
    );
    const tables = rows.map((r) => r.table_name);
    expect(scratch.ds.entityMetadatas.map((m) => m.tableName).sort()).toEqual(tables);
    expect(ENTITIES).toHaveLength(tables.length);
  });

  it('the schema builder proposes no statement, up or down', async () => {
    const log = await scratch.ds.driver.createSchemaBuilder().log();
    // The statements themselves, so a failure says what differs.
    expect(log.upQueries.map((q) => q.query)).toEqual([]);
    expect(log.downQueries.map((q) => q.query)).toEqual([]);
  });

  it('the vector column is declared where the engine has pgvector, and absent from the metadata where it has not', async () => {
    const mode = await detectVectorMode(scratch.ds);
    // This suite's engines: PGlite ships pgvector, the CI's PostgreSQL does not.
    expect(mode).toBe(isPglite() ? 'pgvector' : 'fallback');
    const column = scratch.ds.getMetadata('memories').findColumnWithDatabaseName('embedding_vec');
    expect(column?.type ?? null).toBe(mode === 'pgvector' ? 'vector' : null);
  });
});
