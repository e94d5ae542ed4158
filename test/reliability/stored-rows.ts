import type { TestApp } from '../app-factory';

/**
 * The tenant's stored rows in `tables` (only the subject's, when given) as sorted JSON text, for
 * comparing what is stored before and after a run. Cached health leaves out `updated_at`: a read
 * may refresh the cache without changing it.
 */
export async function storedRows(t: TestApp, tables: readonly string[], where: { tenant: string; subject?: string }): Promise<string[]> {
  const out: string[] = [];
  for (const table of tables) {
    const drop = table === 'health_cache' ? " - 'updated_at'" : '';
    const rows: { j: string }[] =
      where.subject === undefined
        ? await t.ds.query(`SELECT (to_jsonb(x)${drop})::text AS j FROM ${table} x WHERE tenant_id = $1 ORDER BY 1`, [where.tenant])
        : await t.ds.query(`SELECT (to_jsonb(x)${drop})::text AS j FROM ${table} x WHERE tenant_id = $1 AND subject_id = $2 ORDER BY 1`, [where.tenant, where.subject]);
    out.push(...rows.map((r) => `${table} ${r.j}`));
  }
  return out;
}
