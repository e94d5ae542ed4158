import { allRevisions, MigrationStatus } from './migration-runner';
import { EXPECTED_HEAD, MINIMUM_COMPATIBLE } from './migrations';

export interface SchemaReport {
  current_revision: string | null;
  expected_head: string;
  is_compatible: boolean;
  pending_count: number;
  pending_revisions: string[];
  error: string | null;
  summary: string;
}

/** The contract's /ops/migrations fields, also used by the start-up guard and preflight. */
export function schemaReport(status: MigrationStatus | null, error: string | null = null): SchemaReport {
  if (!status) {
    return {
      current_revision: null,
      expected_head: EXPECTED_HEAD,
      is_compatible: false,
      pending_count: allRevisions().length,
      pending_revisions: allRevisions(),
      error,
      summary: `Cannot read the schema revision: ${error ?? 'unknown error'}`,
    };
  }
  const all = allRevisions();
  const current = status.current_revision;
  const atLeastMinimum = current !== null && all.indexOf(current) >= all.indexOf(MINIMUM_COMPATIBLE);
  const isCompatible = atLeastMinimum && status.unknown.length === 0;
  let summary: string;
  if (status.unknown.length > 0) {
    summary = `Database has revisions this app does not know (${status.unknown.join(', ')}): it was migrated by a newer version.`;
  } else if (status.pending.length === 0) {
    summary = `Schema is at head ${EXPECTED_HEAD}.`;
  } else {
    summary = `Schema is at ${current ?? 'base (empty)'}; ${status.pending.length} migration(s) pending to reach ${EXPECTED_HEAD}. Run: npm run migrate -- upgrade head`;
  }
  return {
    current_revision: current,
    expected_head: EXPECTED_HEAD,
    is_compatible: isCompatible,
    pending_count: status.pending.length,
    pending_revisions: status.pending,
    error,
    summary,
  };
}
