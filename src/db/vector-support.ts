import { DataSource } from 'typeorm';

export type VectorMode = 'pgvector' | 'fallback';

/** pgvector is in use exactly when migration 0004 could add the generated vector column. */
export async function detectVectorMode(ds: DataSource): Promise<VectorMode> {
  const rows = await ds.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'memories' AND column_name = 'embedding_vec'`,
  );
  return rows.length > 0 ? 'pgvector' : 'fallback';
}
