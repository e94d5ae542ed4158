import { raw, sql } from 'src/common/db/sql';
import type { SqlFragment } from 'src/common/db/sql';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { hasRole } from './principal';
import type { Principal } from './principal';

/**
 * The one name of the reserved subject namespace: snapshot copies live under
 * `_snapshot/{name}/v{version}` (contract "Snapshots"). Hidden from subject lists, never a restore
 * target, and out of reach of client-role keys (issue 16: a tenant's agent cannot read, alter,
 * compile or delete snapshots). The contract's single key keeps its access (seeding tools rely on it).
 */
export const SNAPSHOT_SUBJECT_PREFIX = '_snapshot/';

/** SQL: the column's subject is not a snapshot copy (left(), so the prefix is literal). */
export const notSnapshotSubject = (column = 'subject_id'): SqlFragment => sql`left(${raw(column)}, ${SNAPSHOT_SUBJECT_PREFIX.length}) <> ${SNAPSHOT_SUBJECT_PREFIX}`;

export const isReservedSubject = (subjectId: unknown): boolean => typeof subjectId === 'string' && subjectId.startsWith(SNAPSHOT_SUBJECT_PREFIX);

/** Fields of client-facing inputs that name a subject: REST bodies, queries and paths, MCP tool arguments, import targets. */
const SUBJECT_FIELDS = ['subject_id', 'target_subject_id'] as const;

/**
 * 403 when a caller without the operator role names a reserved subject anywhere a validated input
 * (the DTO after the validation pipe) carries one: top-level fields and batches (`episodes[]`).
 */
export function refuseReservedSubjects(value: unknown, principal: Principal | undefined): void {
  if (!principal || hasRole(principal, 'operator') || value === null || typeof value !== 'object') return;
  const records = [value as Record<string, unknown>];
  const batch = (value as { episodes?: unknown }).episodes;
  if (Array.isArray(batch)) for (const e of batch) if (e !== null && typeof e === 'object') records.push(e as Record<string, unknown>);
  for (const r of records) {
    for (const f of SUBJECT_FIELDS) {
      if (isReservedSubject(r[f])) throw new AppError(ErrorCode.Forbidden, `Subjects under ${SNAPSHOT_SUBJECT_PREFIX} are reserved for snapshots.`);
    }
  }
}
