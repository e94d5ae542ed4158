import { DataSource } from 'typeorm';

export type VectorMode = 'pgvector' | 'fallback';

/** pgvector is in use exactly when migration 0004 could add the generated vector column. */
export async function detectVectorMode(ds: DataSource): Promise<VectorMode> {
  const rows = await ds.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'memories' AND column_name = 'embedding_vec'`,
  );
  return rows.length > 0 ? 'pgvector' : 'fallback';
}

/**
 * The memories entity declares `embedding_vec`, which migration 0004 adds only where pgvector
 * could be installed. Decorators cannot depend on the database, so in fallback mode the data
 * source's metadata forgets the column: TypeORM then describes the schema the migrations made on
 * this engine (no column, and no statement ever names it: the fallback computes cosine over
 * `embedding`). Idempotent.
 */
export function alignVectorColumn(ds: DataSource, mode: VectorMode): void {
  if (mode === 'pgvector') return;
  const meta = ds.getMetadata('memories');
  const keep = <T extends { databaseName: string }>(cols: T[]) => cols.filter((c) => c.databaseName !== 'embedding_vec');
  meta.columns = keep(meta.columns);
  meta.ownColumns = keep(meta.ownColumns);
  meta.nonVirtualColumns = keep(meta.nonVirtualColumns);
}
